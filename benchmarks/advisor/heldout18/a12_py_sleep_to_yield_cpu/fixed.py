import random

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
    for line in lines:
        path, level, status, latency = parse(line)
        s = stats[path]
        s[0] += 1
        s[1] += status >= 500 or level == "ERROR"
        s[2] += latency
    return np.array([v for p in PATHS for v in stats[p]], dtype=float)


if __name__ == "__main__":
    result = aggregate(records)
