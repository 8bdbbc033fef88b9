import io

import numpy as np

rng = np.random.default_rng(0)
RECORDS, SENSORS = 800_000, 64
RECORD = np.dtype([("sensor", "<u2"), ("t", "<f8"), ("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("status", "<u2")])

raw = np.zeros(RECORDS, dtype=RECORD)
raw["sensor"] = rng.integers(0, SENSORS, RECORDS)
raw["t"] = np.cumsum(rng.exponential(0.01, RECORDS))
raw["x"], raw["y"], raw["z"] = rng.normal(0.0, 1.0, (3, RECORDS))
raw["status"] = rng.integers(0, 4, RECORDS)
dump = io.BytesIO(raw.tobytes())


def read_records(stream):
    rec = np.frombuffer(stream.getvalue(), dtype=RECORD)  # one pass, no Python per record
    xyz = np.stack([rec["x"], rec["y"], rec["z"]], 1)
    return rec["sensor"].astype(np.int64), rec["t"].copy(), xyz, rec["status"].astype(np.int64)


def main():
    sensor, t, xyz, status = read_records(dump)
    ok = status == 0
    magnitude = np.sqrt((xyz.astype(np.float64) ** 2).sum(1))
    counts = np.bincount(sensor[ok], minlength=SENSORS)
    mean_mag = np.bincount(sensor[ok], weights=magnitude[ok], minlength=SENSORS) / np.maximum(counts, 1)
    span = t[-1] - t[0]
    return np.concatenate([counts, mean_mag, [span]])


if __name__ == "__main__":
    result = main()
