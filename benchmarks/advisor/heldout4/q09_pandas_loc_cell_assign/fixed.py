import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N = 1_500
orders = pd.DataFrame({
    "store": rng.integers(0, 40, N),
    "price": rng.uniform(1.0, 200.0, N).round(2),
    "qty": rng.integers(1, 12, N),
    "discount": rng.choice([0.0, 0.05, 0.1, 0.2], N),
})
big = pd.DataFrame({"store": rng.integers(0, 40, 400_000), "amount": rng.gamma(2.0, 30.0, 400_000)})


def main():
    df = orders.copy()
    df["gross"] = df["price"] * df["qty"]
    df["net"] = df["gross"] * (1.0 - df["discount"])
    df["tier"] = np.where(df["gross"] > 500, 2, np.where(df["gross"] > 100, 1, 0))
    history = big.groupby("store")["amount"].agg(["sum", "mean", "std"])
    report = df.groupby("store").agg(net=("net", "sum"), tier=("tier", "mean")).join(history)
    return report.to_numpy(dtype=float)


if __name__ == "__main__":
    result = main()
