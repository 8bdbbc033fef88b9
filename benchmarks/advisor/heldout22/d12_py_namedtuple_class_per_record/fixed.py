import random
from collections import defaultdict, namedtuple

import numpy as np

random.seed(0)
HEADER = ["ts", "host", "sensor", "value", "status"]
LINES = [f"{1_700_000_000 + i},h{random.randrange(40)},s{random.randrange(12)},"
         f"{random.gauss(50.0, 12.0):.3f},{random.choice(['ok', 'ok', 'ok', 'warn', 'err'])}"
         for i in range(12_000)]
Record = namedtuple("Record", HEADER)


def parse(line):
    ts, host, sensor, value, status = line.split(",")
    return Record(int(ts), host, sensor, float(value), status)


def main():
    sums = defaultdict(float)
    counts = defaultdict(int)
    for line in LINES:
        rec = parse(line)
        if rec.status != "err":
            key = (rec.host, rec.sensor)
            sums[key] += rec.value
            counts[key] += 1
    keys = sorted(sums)
    return np.array([[sums[k] / counts[k], counts[k]] for k in keys])


if __name__ == "__main__":
    result = main()
