import numpy as np
import pandas as pd

N_ROWS = 500_000
N_STORES = 400
N_PRODUCTS = 2000
N_PROMOS = 6


def load_sales():
    rng = np.random.default_rng(0)
    stores = [f"S{i:04d}" for i in range(N_STORES)]
    products = [f"P{i:05d}" for i in range(N_PRODUCTS)]
    promos = [f"promo_{i}" for i in range(N_PROMOS)]
    store_idx = rng.integers(0, N_STORES, N_ROWS)
    product_idx = (store_idx * 7 + rng.integers(0, 40, N_ROWS)) % N_PRODUCTS
    return pd.DataFrame({
        "store": pd.Categorical.from_codes(store_idx, stores),
        "product": pd.Categorical.from_codes(product_idx, products),
        "promo": pd.Categorical.from_codes(rng.integers(0, N_PROMOS, N_ROWS), promos),
        "units": rng.integers(1, 20, N_ROWS),
        "price": np.round(rng.uniform(0.5, 30.0, N_ROWS), 2),
    })


def promo_table(sales):
    sales = sales.assign(revenue=sales["units"] * sales["price"])
    table = sales.groupby(["store", "product", "promo"], observed=True).agg(
        units=("units", "sum"), revenue=("revenue", "sum"), orders=("units", "size"),
        avg_price=("price", "mean"), max_units=("units", "max"), min_price=("price", "min"))
    return table[table["orders"] > 0]


def main():
    table = promo_table(load_sales())
    top = table.sort_values("revenue", ascending=False).head(200)
    return np.concatenate([top.to_numpy(dtype=float).ravel(), table[["units", "revenue"]].sum().to_numpy()])


if __name__ == "__main__":
    result = main()
