"""Per-customer summary of a transactions table computed by looping over the unique customer ids and
selecting each customer's rows with a boolean mask, ``df[df["customer_id"] == cid]`` (StackOverflow:
"looping over unique values and filtering a DataFrame is very slow"). Every iteration compares and scans
the whole table, so the work grows with rows x customers. The fix: one ``groupby(...).agg(...)`` pass."""
PLANTED = ("redundant", "host_bound", "hotspot")
TOL = 1e-6
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_ROWS, N_CUSTOMERS = 600_000, 2_000

df = pd.DataFrame({
    "customer_id": rng.integers(0, N_CUSTOMERS, N_ROWS),
    "amount": rng.gamma(2.0, 30.0, N_ROWS).round(2),
    "items": rng.integers(1, 8, N_ROWS),
    "returned": rng.random(N_ROWS) < 0.05,
})


def summarise(frame):
    rows = []
    for cid in np.sort(frame["customer_id"].unique()):
        sub = frame[frame["customer_id"] == cid]
        rows.append({
            "customer_id": cid,
            "n_orders": len(sub),
            "total": sub["amount"].sum(),
            "mean_items": sub["items"].mean(),
            "return_rate": sub["returned"].mean(),
        })
    return pd.DataFrame(rows).set_index("customer_id")


if __name__ == "__main__":
    summary = summarise(df)
    result = summary[["n_orders", "total", "mean_items", "return_rate"]].to_numpy(dtype=float)
