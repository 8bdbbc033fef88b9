import numpy as np

rng = np.random.default_rng(0)
N = 1_600_000
readings = rng.normal(0.0, 1.0, N)
for start in range(20_000, N, 50_000):
    readings[start:start + 8_000] += rng.choice([-1.5, 1.5])


def main():
    z = (readings - np.median(readings)) / (1.4826 * np.median(np.abs(readings - np.median(readings))))
    k, h = 0.5, 12.0
    pos = neg = 0.0
    alarms = []
    for i, x in enumerate(z.tolist()):
        pos = max(0.0, pos + x - k)
        neg = max(0.0, neg - x - k)
        if pos > h or neg > h:
            alarms.append(i)
            pos = neg = 0.0
    return np.array(alarms, dtype=float)


if __name__ == "__main__":
    result = main()
