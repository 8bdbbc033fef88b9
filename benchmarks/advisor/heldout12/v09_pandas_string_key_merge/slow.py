"""Two tables joined on a composite key built by converting both integer key columns to strings and
concatenating them (``df.a.astype(str) + "_" + df.b.astype(str)``) on every row of both frames (StackOverflow /
code review: "merge on multiple columns by creating a combined key"); ``merge`` on the two integer columns does
the same join without building a single string."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-6
import numpy as np
import pandas as pd

N_SALES, STORES, PRODUCTS = 1_500_000, 120, 900

rng = np.random.default_rng(0)
sales = pd.DataFrame({
    "store_id": rng.integers(0, STORES, N_SALES),
    "product_id": rng.integers(0, PRODUCTS, N_SALES),
    "qty": rng.integers(1, 6, N_SALES),
    "day": rng.integers(0, 28, N_SALES),
})
grid = pd.MultiIndex.from_product([range(STORES), range(PRODUCTS)], names=["store_id", "product_id"]).to_frame(index=False)
prices = grid.assign(price=np.round(rng.uniform(0.5, 40.0, len(grid)), 2),
                     discount=rng.choice([0.0, 0.05, 0.1, 0.2], len(grid)))


def add_key(df):
    return df.assign(key=df["store_id"].astype(str) + "_" + df["product_id"].astype(str))


def main():
    priced = add_key(sales).merge(add_key(prices).drop(columns=["store_id", "product_id"]), on="key", how="left")
    priced["revenue"] = priced["qty"] * priced["price"] * (1.0 - priced["discount"])
    weekly = priced.assign(week=priced["day"] // 7).groupby(["store_id", "week"])["revenue"].sum()
    return weekly.unstack("week").to_numpy()


if __name__ == "__main__":
    result = main()
