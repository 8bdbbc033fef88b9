import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N, CUSTOMERS = 200_000, 2500
ORDERS = pd.DataFrame({
    "customer": rng.integers(0, CUSTOMERS, N),
    "price": np.round(rng.lognormal(3.0, 0.6, N), 2),
    "qty": rng.integers(1, 12, N),
    "returned": rng.random(N) < 0.04,
})


def main():
    df = ORDERS[~ORDERS["returned"]]
    df = df.assign(revenue=df["price"] * df["qty"])
    sums = df.groupby("customer")[["revenue", "qty"]].sum()
    totals = sums["revenue"]
    wavg = sums["revenue"] / sums["qty"]
    summary = pd.DataFrame({"revenue": totals, "avg_price": wavg})
    summary["tier"] = pd.qcut(summary["revenue"], 4, labels=False)
    return summary.sort_index().to_numpy(dtype=float).ravel()


if __name__ == "__main__":
    result = main()
