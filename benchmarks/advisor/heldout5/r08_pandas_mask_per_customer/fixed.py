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
    return frame.groupby("customer_id").agg(
        n_orders=("amount", "size"),
        total=("amount", "sum"),
        mean_items=("items", "mean"),
        return_rate=("returned", "mean"),
    )


if __name__ == "__main__":
    summary = summarise(df)
    result = summary[["n_orders", "total", "mean_items", "return_rate"]].to_numpy(dtype=float)
