"""Log ingestion parses each CSV line into a record through a helper that calls `collections.namedtuple(...)`
on the header for every line, building a new class (and its methods) per record instead of once
(code review: "hoist the namedtuple factory out of the per-line function")."""
PLANTED = ("redundant", "host_bound")
TOL = 1e-9
import random
from collections import defaultdict, namedtuple

import numpy as np

random.seed(0)
HEADER = ["ts", "host", "sensor", "value", "status"]
LINES = [f"{1_700_000_000 + i},h{random.randrange(40)},s{random.randrange(12)},"
         f"{random.gauss(50.0, 12.0):.3f},{random.choice(['ok', 'ok', 'ok', 'warn', 'err'])}"
         for i in range(12_000)]


def parse(line, header):
    Record = namedtuple("Record", header)
    ts, host, sensor, value, status = line.split(",")
    return Record(int(ts), host, sensor, float(value), status)


def main():
    sums = defaultdict(float)
    counts = defaultdict(int)
    for line in LINES:
        rec = parse(line, HEADER)
        if rec.status != "err":
            key = (rec.host, rec.sensor)
            sums[key] += rec.value
            counts[key] += 1
    keys = sorted(sums)
    return np.array([[sums[k] / counts[k], counts[k]] for k in keys])


if __name__ == "__main__":
    result = main()
