import heapq
import random

SERVERS, CUSTOMERS = 3, 6_000


def main():
    rng = random.Random(0)
    t = 0.0
    events = []
    for seq in range(CUSTOMERS):
        t += rng.expovariate(1.0)
        events.append((t, seq, "arrive"))
    heapq.heapify(events)
    seq = CUSTOMERS
    free, waiting, waits, max_queue = SERVERS, [], [], 0
    while events:
        now, _, kind = heapq.heappop(events)
        if kind == "arrive":
            if free:
                free -= 1
                waits.append(0.0)
                heapq.heappush(events, (now + rng.expovariate(0.36), seq, "leave"))
                seq += 1
            else:
                waiting.append(now)
                max_queue = max(max_queue, len(waiting))
        else:
            if waiting:
                arrived = waiting.pop(0)
                waits.append(now - arrived)
                heapq.heappush(events, (now + rng.expovariate(0.36), seq, "leave"))
                seq += 1
            else:
                free += 1
    boot = sorted(sum(rng.choices(waits, k=len(waits))) / len(waits) for _ in range(150))
    waits.sort()
    return [sum(waits) / len(waits), waits[len(waits) // 2], waits[int(0.95 * len(waits))], max_queue, now,
            boot[3], boot[-4]]


if __name__ == "__main__":
    result = main()
