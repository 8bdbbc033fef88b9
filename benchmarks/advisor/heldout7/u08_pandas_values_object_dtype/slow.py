"""Feature matrix taken from a DataFrame with df.values while a string id column is still in the frame:
the array comes back with dtype object, and the standardisation and scoring that follow run as Python
float arithmetic element by element (StackOverflow question: "numpy operations on df.values are 50x
slower than expected")."""
PLANTED = ("precision", "host_bound", "hotspot")
TOL = 1e-8
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N, F = 150_000, 16
df = pd.DataFrame(rng.normal(size=(N, F)) * rng.uniform(0.5, 20.0, size=F), columns=[f"f{j}" for j in range(F)])
df.insert(0, "customer_id", [f"C{i:07d}" for i in range(N)])
weights = rng.normal(size=F)


def main():
    X = df.values[:, 1:]
    mu = X.mean(axis=0)
    sd = ((X - mu) ** 2).mean(axis=0) ** 0.5
    Z = (X - mu) / sd
    scores = Z @ weights
    norms = (Z * Z).sum(axis=1) ** 0.5
    return np.asarray(np.concatenate([scores, norms]), dtype=float)


if __name__ == "__main__":
    result = main()
