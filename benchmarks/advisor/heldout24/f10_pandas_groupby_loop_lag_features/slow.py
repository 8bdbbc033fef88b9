"""Per-store lag and rolling-mean features built by looping over df.groupby("store"), sorting and shifting each group as its own DataFrame and concatenating, instead of one sort and grouped shift/rolling."""
PLANTED = ("host_bound", "redundant")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
n_stores, n_days = 700, 60
df = pd.DataFrame({
    "store": np.repeat(np.arange(n_stores), n_days),
    "day": np.tile(np.arange(n_days), n_stores),
    "sales": rng.gamma(2.0, 50.0, n_stores * n_days),
}).sample(frac=1.0, random_state=0).reset_index(drop=True)        # rows arrive shuffled


def main():
    parts = []
    for store, g in df.groupby("store"):
        g = g.sort_values("day").copy()
        g["lag1"] = g["sales"].shift(1)
        g["lag7"] = g["sales"].shift(7)
        g["roll7"] = g["sales"].rolling(7).mean()
        parts.append(g)
    feats = pd.concat(parts, ignore_index=True)
    return feats[["store", "day", "lag1", "lag7", "roll7"]].fillna(0.0).to_numpy(dtype=float)


if __name__ == "__main__":
    result = main()
