"""Weekly revenue report over an event log whose timestamps arrived as ISO-8601 strings (an API export): the
report helper converts the string column with ``pd.to_datetime`` every time it is called, once per reporting
window, so the same 90 000 strings are parsed again for every week; modelled on a StackOverflow question
("pandas report loop slow, profiler shows to_datetime")."""
PLANTED = ("redundant", "hotspot", "input_pipeline")
TOL = 1e-6
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_EVENTS = 90_000
start = np.datetime64("2024-01-01T00:00:00")
offsets = np.sort(rng.integers(0, 86_400 * 7 * 26, N_EVENTS)).astype("timedelta64[s]")
events = pd.DataFrame({
    "timestamp": np.datetime_as_string(start + offsets, unit="s"),
    "customer": rng.integers(0, 5_000, N_EVENTS),
    "region": rng.choice(["north", "south", "east", "west"], N_EVENTS),
    "amount": np.round(rng.gamma(2.0, 30.0, N_EVENTS), 2),
})


def window_report(df: pd.DataFrame, lo: pd.Timestamp, hi: pd.Timestamp) -> pd.Series:
    ts = pd.to_datetime(df["timestamp"])
    sel = df[(ts >= lo) & (ts < hi)]
    by_region = sel.groupby("region")["amount"].sum()
    return pd.Series({"revenue": sel["amount"].sum(), "customers": sel["customer"].nunique(),
                      "top_region": by_region.max(), "orders": len(sel)})


def main():
    weeks = pd.date_range("2024-01-01", periods=26, freq="7D")
    rows = [window_report(events, lo, lo + pd.Timedelta(days=7)) for lo in weeks]
    return pd.DataFrame(rows).to_numpy(dtype=float)


if __name__ == "__main__":
    result = main()
