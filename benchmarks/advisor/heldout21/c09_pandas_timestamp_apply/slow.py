"""Builds calendar features (hour, weekday, weekend flag, minute of day) from a transaction timestamp column.
Planted: each feature is a Series.apply of a lambda on boxed pd.Timestamp objects, one Python call per row,
instead of the vectorised .dt accessors. Modelled on StackOverflow "extract hour from datetime column is slow"."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N = 60_000
start = np.datetime64("2024-01-01T00:00:00")
ts = start + np.sort(rng.integers(0, 365 * 24 * 3600, N)).astype("timedelta64[s]")
df = pd.DataFrame({"ts": pd.to_datetime(ts), "amount": rng.gamma(2.0, 30.0, N)})


def main():
    feats = pd.DataFrame({
        "hour": df["ts"].apply(lambda t: t.hour),
        "weekday": df["ts"].apply(lambda t: t.weekday()),
        "weekend": df["ts"].apply(lambda t: t.weekday() >= 5),
        "minute_of_day": df["ts"].apply(lambda t: t.hour * 60 + t.minute),
    })
    table = df["amount"].groupby([feats["weekday"], feats["hour"]]).mean().unstack()
    night = (feats["minute_of_day"] < 360) & ~feats["weekend"]
    return np.concatenate([table.to_numpy().ravel(), [df["amount"][night].sum()]])


if __name__ == "__main__":
    result = main()
