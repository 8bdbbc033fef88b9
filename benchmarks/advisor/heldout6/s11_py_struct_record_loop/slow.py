"""Decodes a binary telemetry dump (fixed-size little-endian records: sensor id, timestamp, three float
readings, a status word) with struct.unpack_from in a Python loop, then computes per-sensor statistics
(StackOverflow: "fastest way to read a binary file of records into numpy"; the answer is one
np.frombuffer with a structured dtype).

The dump is produced in memory (io.BytesIO) in the same script, standing in for a device export."""
PLANTED = ("host_bound", "input_pipeline", "hotspot")
TOL = 1e-9
import io
import struct

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
    data = stream.getvalue()
    layout = struct.Struct("<HdfffH")
    sensor, t, xyz, status = [], [], [], []
    for offset in range(0, len(data), layout.size):
        s, ts, x, y, z, st = layout.unpack_from(data, offset)
        sensor.append(s)
        t.append(ts)
        xyz.append((x, y, z))
        status.append(st)
    return np.array(sensor), np.array(t), np.array(xyz, dtype=np.float32), np.array(status)


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
