"""A sensor export with a space after every comma is read with ``pd.read_csv(sep=r"\\s*,\\s*")``; a
regular-expression separator switches pandas to its pure-Python parser, with only a ParserWarning lost in
the job's log (StackOverflow: "read_csv is 10x slower with a regex sep; use skipinitialspace=True")."""
PLANTED = ("input_pipeline", "host_bound", "hotspot")
TOL = 1e-6
import io

import numpy as np
import pandas as pd

N_ROWS = 60_000
N_SENSORS = 40


def make_export(n_rows):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "ts": np.arange(n_rows) * 10,
        "sensor": rng.integers(0, N_SENSORS, n_rows),
        "temp": np.round(rng.normal(21.0, 3.0, n_rows), 3),
        "humidity": np.round(rng.uniform(20, 80, n_rows), 2),
        "voltage": np.round(rng.normal(3.3, 0.05, n_rows), 4),
    })
    text = frame.to_csv(index=False).replace(",", ", ")
    return io.StringIO(text)


def load(buffer):
    return pd.read_csv(buffer, sep=r"\s*,\s*")


def summarise(df):
    df = df[df["voltage"] > 3.2]
    stats = df.groupby("sensor").agg(temp=("temp", "mean"), humidity=("humidity", "max"), n=("ts", "size"))
    return stats.to_numpy(dtype=float)


def main():
    buffer = make_export(N_ROWS)
    return summarise(load(buffer))


if __name__ == "__main__":
    result = main()
