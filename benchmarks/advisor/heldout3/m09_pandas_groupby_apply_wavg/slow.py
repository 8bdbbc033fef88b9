"""Per-customer weighted average price computed with groupby(...).apply(lambda g: ...), a Python call
and a handful of small pandas operations per group, where a product column and two built-in groupby sums
do it in vectorised passes (StackOverflow: "pandas groupby weighted average", "groupby apply slow")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-6
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
    totals = df.groupby("customer")["revenue"].sum()
    wavg = df.groupby("customer").apply(lambda g: (g["price"] * g["qty"]).sum() / g["qty"].sum())
    summary = pd.DataFrame({"revenue": totals, "avg_price": wavg})
    summary["tier"] = pd.qcut(summary["revenue"], 4, labels=False)
    return summary.sort_index().to_numpy(dtype=float).ravel()


if __name__ == "__main__":
    result = main()
