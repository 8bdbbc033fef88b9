"""Parses and aggregates a batch of key=value log records in pure Python, calling time.sleep(0.001) every 400
records "to yield the CPU" to other programs (code review: "the nightly batch job sits idle half the time").
No other thread or process is waiting on it, so every sleep is idle time."""
PLANTED = ("idle",)
TOL = 1e-9
import random
import time

import numpy as np

random.seed(0)
N_RECORDS = 100_000
PATHS = ["/api/users", "/api/orders", "/api/search", "/static/app.js", "/health"]
LEVELS = ["INFO", "INFO", "INFO", "WARN", "ERROR"]
records = [
    f"ts={1_700_000_000 + i} level={random.choice(LEVELS)} path={random.choice(PATHS)} "
    f"status={random.choice((200, 200, 200, 404, 500))} latency_ms={random.expovariate(1 / 40):.2f}"
    for i in range(N_RECORDS)
]


def parse(line):
    fields = dict(part.split("=", 1) for part in line.split())
    return fields["path"], fields["level"], int(fields["status"]), float(fields["latency_ms"])


def aggregate(lines):
    stats = {p: [0, 0, 0.0] for p in PATHS}
    for n, line in enumerate(lines):
        path, level, status, latency = parse(line)
        s = stats[path]
        s[0] += 1
        s[1] += status >= 500 or level == "ERROR"
        s[2] += latency
        if n % 400 == 399:
            time.sleep(0.001)
    return np.array([v for p in PATHS for v in stats[p]], dtype=float)


if __name__ == "__main__":
    result = aggregate(records)
