"""Basket pricing against a (store, sku) price table whose MultiIndex was built by concatenating regional
price lists and never sorted, so each ``prices.loc[store]`` compares the codes of the whole first level
(a full scan and a boolean mask) instead of a binary search (StackOverflow threads on slow ``.loc`` with a
MultiIndex and the lexsort ``PerformanceWarning``; the pandas docs: sort a MultiIndex before indexing it,
``sort_index()`` once)."""
PLANTED = ("hotspot", "layout", "redundant")
TOL = 1e-6
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_STORES, N_SKUS, N_REGIONS, N_BASKETS = 400, 3000, 8, 1600
STORES = np.array([f"ST{i:04d}" for i in range(N_STORES)])


def regional_price_lists():
    frames = []
    for region in range(N_REGIONS):
        stores = STORES[region::N_REGIONS]
        n = len(stores) * 500
        frames.append(pd.DataFrame({"store": rng.choice(stores, n), "sku": rng.integers(0, N_SKUS, n),
                                    "price": rng.uniform(0.5, 40.0, n).round(2)}))
    table = pd.concat(frames, ignore_index=True).drop_duplicates(["store", "sku"])
    return table.set_index(["store", "sku"])["price"]


def baskets():
    out = []
    for _ in range(N_BASKETS):
        store = STORES[rng.integers(N_STORES)]
        out.append((store, rng.integers(0, N_SKUS, rng.integers(3, 25))))
    return out


def price_baskets(prices, orders):
    totals = np.empty(len(orders))
    missing = 0
    for i, (store, skus) in enumerate(orders):
        store_prices = prices.loc[store]
        found = store_prices.reindex(skus)
        missing += int(found.isna().sum())
        totals[i] = found.sum()
    return totals, missing


def main():
    prices = regional_price_lists()
    orders = baskets()
    totals, missing = price_baskets(prices, orders)
    return np.concatenate([totals, [missing]])


if __name__ == "__main__":
    result = main()
