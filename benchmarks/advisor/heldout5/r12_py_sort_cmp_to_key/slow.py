"""Re-ranking a live leaderboard after each batch of score updates, with a comparison function carried
over from Python 2 code, ``sorted(entries, key=functools.cmp_to_key(compare))`` (StackOverflow: "sorting
with cmp_to_key is much slower than with key" / code review of a Python 2 port). The comparator is called
O(n log n) times from Python, each call unpacking and comparing several fields. The fix: express the
order as a key tuple (negate the fields sorted descending) so each entry's key is computed once and
compared in C."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import functools
import random

random.seed(0)
N_PLAYERS, N_TICKS, UPDATES_PER_TICK = 60_000, 8, 3_000


def make_players():
    players = []
    for pid in range(N_PLAYERS):
        players.append({
            "player": f"p{pid:06d}",
            "score": random.randint(0, 5000),
            "wins": random.randint(0, 40),
            "time_s": round(random.uniform(60.0, 3600.0), 1),
        })
    random.shuffle(players)
    return players


PLAYERS = make_players()
UPDATES = [[(random.randrange(N_PLAYERS), random.randint(1, 50), random.random() < 0.3)
            for _ in range(UPDATES_PER_TICK)] for _ in range(N_TICKS)]


def compare(a, b):
    # higher score first, then more wins, then faster time, then name
    if a["score"] != b["score"]:
        return -1 if a["score"] > b["score"] else 1
    if a["wins"] != b["wins"]:
        return -1 if a["wins"] > b["wins"] else 1
    if a["time_s"] != b["time_s"]:
        return -1 if a["time_s"] < b["time_s"] else 1
    if a["player"] != b["player"]:
        return -1 if a["player"] < b["player"] else 1
    return 0


def rank(entries):
    return sorted(entries, key=functools.cmp_to_key(compare))


def main():
    by_id = {int(e["player"][1:]): e for e in PLAYERS}
    out = []
    for tick in range(N_TICKS):
        for pid, points, won in UPDATES[tick]:
            entry = by_id[pid]
            entry["score"] += points
            entry["wins"] += won
        ranked = rank(PLAYERS)
        out.extend(int(e["player"][1:]) for e in ranked[:100])
    return out


if __name__ == "__main__":
    result = main()
