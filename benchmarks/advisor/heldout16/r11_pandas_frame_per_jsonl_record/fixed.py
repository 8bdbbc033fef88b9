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
    return pd.DataFrame.from_records([json.loads(line) for line in text.splitlines()])


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
