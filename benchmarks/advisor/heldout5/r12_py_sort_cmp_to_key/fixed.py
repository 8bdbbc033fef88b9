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


def rank(entries):
    # higher score first, then more wins, then faster time, then name
    return sorted(entries, key=lambda e: (-e["score"], -e["wins"], e["time_s"], e["player"]))


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
