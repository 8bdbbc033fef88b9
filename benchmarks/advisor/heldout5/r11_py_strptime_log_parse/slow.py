"""Parsing an application log to compute request latencies per endpoint: each line's ISO-8601 timestamp
is parsed with ``datetime.strptime(ts, "%Y-%m-%d %H:%M:%S.%f")`` (StackOverflow: "strptime is the
bottleneck of my log parser" — ``strptime`` goes through the pure-Python ``_strptime`` module and a regex
for every call). The timestamps are already in ISO format, so the fix is ``datetime.fromisoformat``,
implemented in C, which gives the same datetimes."""
PLANTED = ("hotspot", "host_bound")
TOL = 1e-6
import random
from collections import defaultdict
from datetime import datetime, timedelta

random.seed(0)
N_LINES = 200_000
ENDPOINTS = ["/api/login", "/api/search", "/api/items", "/api/cart", "/api/checkout", "/healthz"]


def make_log():
    t = datetime(2026, 11, 30, 8, 0, 0)
    lines, open_requests = [], []
    for i in range(N_LINES):
        t += timedelta(microseconds=random.randint(50, 5000))
        if open_requests and random.random() < 0.5:
            rid, ep = open_requests.pop(random.randrange(len(open_requests)))
            lines.append(f"{t.isoformat(sep=' ', timespec='microseconds')} END req={rid} {ep} status=200")
        else:
            ep = random.choice(ENDPOINTS)
            open_requests.append((i, ep))
            lines.append(f"{t.isoformat(sep=' ', timespec='microseconds')} START req={i} {ep}")
    return lines


LOG = make_log()


def parse_ts(ts):
    return datetime.strptime(ts, "%Y-%m-%d %H:%M:%S.%f")


def latencies(lines):
    started = {}
    per_endpoint = defaultdict(list)
    for line in lines:
        date, clock, kind, req, endpoint = line.split(" ")[:5]
        when = parse_ts(date + " " + clock)
        rid = int(req[4:])
        if kind == "START":
            started[rid] = when
        else:
            per_endpoint[endpoint].append((when - started.pop(rid)).total_seconds() * 1000.0)
    stats = []
    for ep in ENDPOINTS:
        ms = sorted(per_endpoint[ep])
        stats += [len(ms), sum(ms) / len(ms), ms[len(ms) // 2], ms[int(0.95 * len(ms))]]
    return stats


if __name__ == "__main__":
    result = latencies(LOG)
