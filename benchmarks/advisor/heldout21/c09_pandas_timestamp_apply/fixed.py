import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N = 60_000
start = np.datetime64("2024-01-01T00:00:00")
ts = start + np.sort(rng.integers(0, 365 * 24 * 3600, N)).astype("timedelta64[s]")
df = pd.DataFrame({"ts": pd.to_datetime(ts), "amount": rng.gamma(2.0, 30.0, N)})


def main():
    t = df["ts"].dt
    feats = pd.DataFrame({
        "hour": t.hour,
        "weekday": t.day_of_week,
        "weekend": t.day_of_week >= 5,
        "minute_of_day": t.hour * 60 + t.minute,
    })
    table = df["amount"].groupby([feats["weekday"], feats["hour"]]).mean().unstack()
    night = (feats["minute_of_day"] < 360) & ~feats["weekend"]
    return np.concatenate([table.to_numpy().ravel(), [df["amount"][night].sum()]])


if __name__ == "__main__":
    result = main()
