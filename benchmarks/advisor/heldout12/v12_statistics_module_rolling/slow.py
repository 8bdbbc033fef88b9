"""A latency monitor that parses log lines and flags outliers with a rolling z-score, calling
``statistics.mean`` and ``statistics.stdev`` on the window for every new value (StackOverflow / code review:
"the statistics module is very slow"); these functions sum exactly with rational arithmetic, far more
precision than a z-score threshold needs, where float sums (``math.fsum``) give the same scores."""
PLANTED = ("hotspot", "precision")
TOL = 1e-8
import math
import random
import statistics
from collections import defaultdict, deque

WINDOW, LINES, THRESHOLD = 120, 7_000, 3.0
ENDPOINTS = ["/api/login", "/api/search", "/api/cart", "/api/checkout", "/api/items", "/health"]

random.seed(0)
log_lines = []
for i in range(LINES):
    ep = random.choice(ENDPOINTS)
    base = 20.0 + 15.0 * ENDPOINTS.index(ep)
    latency = random.lognormvariate(math.log(base), 0.3)
    if random.random() < 0.003:
        latency *= 8.0
    log_lines.append(f"2024-05-01T12:{i // 3600 % 60:02d}:{i // 60 % 60:02d} GET {ep} status=200 latency_ms={latency:.3f}")


def rolling_stats(values):
    return statistics.mean(values), statistics.stdev(values)


def main():
    windows = defaultdict(lambda: deque(maxlen=WINDOW))
    scores = defaultdict(list)
    alerts = defaultdict(int)
    for line in log_lines:
        _, _, endpoint, _, field = line.split(" ")
        value = float(field.partition("=")[2])
        window = windows[endpoint]
        if len(window) == WINDOW:
            mean, std = rolling_stats(window)
            z = (value - mean) / std
            scores[endpoint].append(z)
            if z > THRESHOLD:
                alerts[endpoint] += 1
        window.append(value)
    return [[alerts[ep], sum(scores[ep]) / len(scores[ep]), max(scores[ep])] for ep in ENDPOINTS]


if __name__ == "__main__":
    result = main()
