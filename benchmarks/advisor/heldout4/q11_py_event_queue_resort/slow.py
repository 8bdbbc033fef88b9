"""Discrete-event simulation of a multi-server queue in plain Python whose event list is a Python list
re-sorted after every insertion (``events.append(...); events.sort(reverse=True)``) and popped from the
end: every event costs a pass over all pending events (StackOverflow / code-review threads: "priority
queue with list.sort is slow, use heapq"). The fix: ``heapq.heappush`` / ``heapq.heappop``; the
bootstrap of the mean wait after the simulation is unchanged."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-9
import random

SERVERS, CUSTOMERS = 3, 6_000


def main():
    rng = random.Random(0)
    t = 0.0
    events = []
    for seq in range(CUSTOMERS):
        t += rng.expovariate(1.0)
        events.append((t, seq, "arrive"))
    events.sort(reverse=True)
    seq = CUSTOMERS
    free, waiting, waits, max_queue = SERVERS, [], [], 0
    while events:
        now, _, kind = events.pop()
        if kind == "arrive":
            if free:
                free -= 1
                waits.append(0.0)
                events.append((now + rng.expovariate(0.36), seq, "leave"))
                seq += 1
                events.sort(reverse=True)
            else:
                waiting.append(now)
                max_queue = max(max_queue, len(waiting))
        else:
            if waiting:
                arrived = waiting.pop(0)
                waits.append(now - arrived)
                events.append((now + rng.expovariate(0.36), seq, "leave"))
                seq += 1
                events.sort(reverse=True)
            else:
                free += 1
    boot = sorted(sum(rng.choices(waits, k=len(waits))) / len(waits) for _ in range(150))
    waits.sort()
    return [sum(waits) / len(waits), waits[len(waits) // 2], waits[int(0.95 * len(waits))], max_queue, now,
            boot[3], boot[-4]]


if __name__ == "__main__":
    result = main()
