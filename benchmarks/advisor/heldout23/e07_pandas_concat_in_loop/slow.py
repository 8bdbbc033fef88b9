"""Daily event batches appended to a running DataFrame with `pd.concat([df, batch])` inside the loop, copying
the whole growing frame every day (quadratic), before a per-store summary (StackOverflow: "pandas concat in a
loop gets slower and slower")."""
PLANTED = ("memory", "redundant")
TOL = 1e-6
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
DAYS, ROWS_PER_DAY, STORES = 500, 800, 50


def day_batch(day):
    return pd.DataFrame({
        "day": np.full(ROWS_PER_DAY, day, dtype=np.int64),
        "store": rng.integers(0, STORES, ROWS_PER_DAY),
        "qty": rng.integers(1, 10, ROWS_PER_DAY),
        "price": rng.random(ROWS_PER_DAY) * 20.0,
        "discount": rng.random(ROWS_PER_DAY) * 0.3,
    })


def main():
    events = None
    for day in range(DAYS):
        batch = day_batch(day)
        events = batch if events is None else pd.concat([events, batch], ignore_index=True)
    revenue = events["qty"] * events["price"] * (1.0 - events["discount"])
    summary = revenue.groupby(events["store"]).agg(["sum", "mean", "count"])
    return summary.to_numpy(dtype=float)


if __name__ == "__main__":
    result = main()
