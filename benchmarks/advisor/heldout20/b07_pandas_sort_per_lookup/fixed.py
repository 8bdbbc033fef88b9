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


def main():
    book = trades.sort_values("ts")
    pos = book["ts"].searchsorted(orders, side="right") - 1
    return book["price"].to_numpy()[pos].astype(float)


if __name__ == "__main__":
    result = main()
