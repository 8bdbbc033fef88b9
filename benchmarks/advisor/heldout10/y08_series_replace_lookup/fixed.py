import numpy as np
import pandas as pd

N_PRODUCTS = 220
N_SALES = 200_000
CATEGORIES = ["grocery", "dairy", "bakery", "frozen", "drinks", "household", "garden", "toys", "books"]


def product_table(rng):
    return pd.DataFrame({
        "sku": [f"SKU-{i:05d}" for i in range(N_PRODUCTS)],
        "category": rng.choice(CATEGORIES, size=N_PRODUCTS),
        "unit_cost": rng.uniform(0.5, 40.0, size=N_PRODUCTS).round(2),
    })


def sales_log(rng, products):
    popularity = rng.zipf(1.3, size=N_PRODUCTS).astype(float)
    p = popularity / popularity.sum()
    idx = rng.choice(N_PRODUCTS, size=N_SALES, p=p)
    return pd.DataFrame({
        "date": pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 365, N_SALES), unit="D"),
        "sku": products["sku"].to_numpy()[idx],
        "qty": rng.integers(1, 12, N_SALES),
        "price": products["unit_cost"].to_numpy()[idx] * rng.uniform(1.1, 1.6, N_SALES),
    })


def enrich(sales, products):
    sku_to_cat = dict(zip(products["sku"], products["category"]))
    sku_to_cost = dict(zip(products["sku"], products["unit_cost"]))
    out = sales.copy()
    out["category"] = out["sku"].map(sku_to_cat)
    out["unit_cost"] = out["sku"].map(sku_to_cost).astype(float)
    out["revenue"] = out["qty"] * out["price"]
    out["margin"] = out["revenue"] - out["qty"] * out["unit_cost"]
    out["month"] = out["date"].dt.month
    return out


def report(df):
    table = df.pivot_table(index="category", columns="month", values="margin", aggfunc="sum", fill_value=0.0)
    share = df.groupby("category")["revenue"].sum() / df["revenue"].sum()
    return np.concatenate([table.to_numpy().ravel(), share.to_numpy()])


def main():
    rng = np.random.default_rng(0)
    products = product_table(rng)
    sales = sales_log(rng, products)
    return report(enrich(sales, products))


if __name__ == "__main__":
    result = main()
