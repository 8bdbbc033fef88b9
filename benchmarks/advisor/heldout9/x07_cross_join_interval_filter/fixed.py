import numpy as np
import pandas as pd

rng = np.random.default_rng(0)

N_SHIFTS = 1500
N_READINGS = 4000


def make_shifts(n=N_SHIFTS):
    lengths = rng.integers(4, 12, n) * 3600
    gaps = rng.integers(0, 3, n) * 1800
    starts = np.cumsum(np.r_[0, (lengths + gaps)[:-1]])
    t0 = pd.Timestamp("2023-01-01")
    return pd.DataFrame({
        "shift_id": np.arange(n),
        "start": t0 + pd.to_timedelta(starts, unit="s"),
        "end": t0 + pd.to_timedelta(starts + lengths, unit="s"),
        "line": rng.integers(0, 6, n),
    })


def make_readings(shifts, n=N_READINGS):
    span = (shifts["end"].iloc[-1] - shifts["start"].iloc[0]).total_seconds()
    offsets = np.sort(rng.integers(0, int(span), n))
    return pd.DataFrame({
        "ts": shifts["start"].iloc[0] + pd.to_timedelta(offsets, unit="s"),
        "sensor": rng.integers(0, 40, n),
        "value": rng.normal(20.0, 4.0, n),
    })


def assign_shifts(readings, shifts):
    pairs = pd.merge_asof(readings.sort_values("ts"), shifts, left_on="ts", right_on="start")
    inside = pairs["ts"] < pairs["end"]
    return pairs.loc[inside, ["ts", "sensor", "value", "shift_id", "line"]]


def shift_report(matched):
    report = matched.groupby("shift_id").agg(n=("value", "size"), mean=("value", "mean"),
                                             peak=("value", "max"), sensors=("sensor", "nunique"))
    return report.sort_index()


def main():
    shifts = make_shifts()
    readings = make_readings(shifts)
    matched = assign_shifts(readings, shifts)
    report = shift_report(matched)
    return report.to_numpy(dtype=float)


if __name__ == "__main__":
    result = main()
