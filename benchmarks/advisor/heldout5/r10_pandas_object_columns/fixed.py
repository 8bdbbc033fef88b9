import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_ORDERS, N_STORES, N_DAYS = 300_000, 400, 90

stores = [f"S{i:04d}" for i in range(N_STORES)]
_store = rng.integers(0, N_STORES, N_ORDERS)
_day = rng.integers(0, N_DAYS, N_ORDERS)
_amount = rng.gamma(2.0, 25.0, N_ORDERS).round(2)
_qty = rng.integers(1, 10, N_ORDERS)
_cost = (_amount * rng.uniform(0.55, 0.8, N_ORDERS)).round(2)
# what cursor.fetchall() returns: a list of tuples of Python scalars
rows = list(zip(range(N_ORDERS), [stores[s] for s in _store], _day.tolist(), _amount.tolist(), _qty.tolist(),
                _cost.tolist()))
COLUMNS = ["order_id", "store", "day", "amount", "qty", "cost"]
DISCOUNTS = [round(0.01 * k, 2) for k in range(25)]  # 0 % to 24 %


def load(rows):
    return pd.DataFrame(rows, columns=COLUMNS)


def report(df):
    """Per-store revenue, order size and price, then margin per store under each discount scenario."""
    df["unit_price"] = df["amount"] / df["qty"]
    per_store = df.groupby("store").agg(revenue=("amount", "sum"), orders=("order_id", "count"),
                                        units=("qty", "sum"), avg_price=("unit_price", "mean"))
    daily = df.groupby("day")["amount"].sum()
    trend = daily.rolling(7).mean().dropna()
    for d in DISCOUNTS:
        net = df["amount"] * (1.0 - d)
        margin = (net - df["cost"]).clip(lower=0.0)
        per_store[f"margin_{d:.2f}"] = margin.groupby(df["store"]).sum()
        per_store[f"loss_share_{d:.2f}"] = (net < df["cost"]).groupby(df["store"]).mean()
    return np.concatenate([per_store.sort_index().to_numpy(dtype=float).ravel(), trend.to_numpy(dtype=float)])


if __name__ == "__main__":
    result = report(load(rows))
