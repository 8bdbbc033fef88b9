"""Loading a JSON-lines sensor log (held in memory) into pandas: each line is parsed and turned into its own
one-row DataFrame, and the thousands of tiny frames are concatenated before a per-device aggregation.
Modelled on StackOverflow questions like "building a DataFrame from JSON lines row by row is very slow"."""
PLANTED = ["input_pipeline", "host_bound"]
TOL = 1e-9
import json

import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_LINES, N_DEVICES = 2500, 40

LOG = "\n".join(
    json.dumps({"ts": 1_700_000_000 + 5 * i, "device": f"dev-{int(rng.integers(N_DEVICES)):02d}",
                "temp_c": round(float(rng.normal(21.0, 3.0)), 3), "humidity": round(float(rng.uniform(20, 80)), 2),
                "battery": round(float(rng.uniform(3.0, 4.2)), 3), "ok": bool(rng.random() > 0.02)})
    for i in range(N_LINES)
)


def load_log(text):
    frames = [pd.DataFrame([json.loads(line)]) for line in text.splitlines()]
    return pd.concat(frames, ignore_index=True)


def main():
    df = load_log(LOG)
    df = df[df["ok"]]
    df["ts"] = pd.to_datetime(df["ts"], unit="s")
    df["dew_point"] = df["temp_c"] - (100.0 - df["humidity"]) / 5.0
    agg = df.groupby("device").agg(temp_mean=("temp_c", "mean"), temp_max=("temp_c", "max"),
                                   dew_mean=("dew_point", "mean"), battery_min=("battery", "min"),
                                   n=("temp_c", "size"))
    hourly = df.set_index("ts")["temp_c"].resample("1h").mean()
    return np.concatenate([agg.to_numpy(dtype=float).ravel(), hourly.to_numpy()])


if __name__ == "__main__":
    result = main()
