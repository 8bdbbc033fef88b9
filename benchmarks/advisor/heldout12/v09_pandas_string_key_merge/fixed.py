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


def main():
    priced = sales.merge(prices, on=["store_id", "product_id"], how="left")
    priced["revenue"] = priced["qty"] * priced["price"] * (1.0 - priced["discount"])
    weekly = priced.assign(week=priced["day"] // 7).groupby(["store_id", "week"])["revenue"].sum()
    return weekly.unstack("week").to_numpy()


if __name__ == "__main__":
    result = main()
