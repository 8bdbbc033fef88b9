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
    feats = df.sort_values(["store", "day"], ignore_index=True)    # one sort
    sales = feats.groupby("store", sort=False)["sales"]
    feats["lag1"] = sales.shift(1)                                  # grouped, vectorised
    feats["lag7"] = sales.shift(7)
    feats["roll7"] = sales.rolling(7).mean().reset_index(level=0, drop=True)
    return feats[["store", "day", "lag1", "lag7", "roll7"]].fillna(0.0).to_numpy(dtype=float)


if __name__ == "__main__":
    result = main()
