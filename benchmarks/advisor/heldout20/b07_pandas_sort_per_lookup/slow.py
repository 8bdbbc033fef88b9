"""Point-in-time price lookup for a list of order timestamps: the (unchanging) trades frame is re-sorted with
sort_values inside the loop for every lookup before a searchsorted, instead of sorting once.
Modelled on StackOverflow/code-review threads like "last price before each timestamp in pandas is slow"."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N = 150_000
trades = pd.DataFrame({
    "ts": rng.integers(0, 10**9, N),
    "price": 100 + np.cumsum(rng.normal(0, 0.05, N)),
    "size": rng.integers(1, 500, N),
})
orders = np.sort(rng.integers(10**7, 10**9, 60))


def last_price(ts):
    book = trades.sort_values("ts")
    pos = book["ts"].searchsorted(ts, side="right") - 1
    return float(book["price"].iloc[pos])


def main():
    return np.array([last_price(t) for t in orders])


if __name__ == "__main__":
    result = main()
