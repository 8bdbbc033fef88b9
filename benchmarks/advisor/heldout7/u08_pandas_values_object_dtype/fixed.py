import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N, F = 150_000, 16
df = pd.DataFrame(rng.normal(size=(N, F)) * rng.uniform(0.5, 20.0, size=F), columns=[f"f{j}" for j in range(F)])
df.insert(0, "customer_id", [f"C{i:07d}" for i in range(N)])
weights = rng.normal(size=F)


def main():
    X = df.drop(columns="customer_id").values
    mu = X.mean(axis=0)
    sd = ((X - mu) ** 2).mean(axis=0) ** 0.5
    Z = (X - mu) / sd
    scores = Z @ weights
    norms = (Z * Z).sum(axis=1) ** 0.5
    return np.asarray(np.concatenate([scores, norms]), dtype=float)


if __name__ == "__main__":
    result = main()
