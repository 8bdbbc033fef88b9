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
    ranked = df.sort_values(["customer", "amount"], ascending=[True, False])
    top = ranked.groupby("customer").head(n).reset_index(drop=True)
    return top[["customer", "order_id", "amount"]].to_numpy(dtype=float)


if __name__ == "__main__":
    result = top_orders(orders)
