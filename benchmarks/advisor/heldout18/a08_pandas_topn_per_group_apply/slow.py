"""Keeps each customer's three largest orders with groupby(...).apply(lambda g: g.nlargest(3, "amount"))
(StackOverflow: "pandas top n rows per group is very slow"). Thousands of small groups each pay a Python call
and a DataFrame construction; one sort followed by groupby(...).head(3) selects the same rows."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_ORDERS, N_CUSTOMERS = 26_000, 1_300
orders = pd.DataFrame({
    "customer": rng.integers(0, N_CUSTOMERS, size=N_ORDERS),
    "order_id": np.arange(N_ORDERS),
    "amount": np.round(rng.lognormal(3.0, 1.0, size=N_ORDERS), 2) + rng.random(N_ORDERS) * 1e-3,
})


def top_orders(df, n=3):
    top = df.groupby("customer")[["order_id", "amount"]].apply(lambda g: g.nlargest(n, "amount"))
    top = top.reset_index(level=0).reset_index(drop=True)
    return top[["customer", "order_id", "amount"]].to_numpy(dtype=float)


if __name__ == "__main__":
    result = top_orders(orders)
