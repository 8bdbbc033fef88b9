"""Churn-model feature engineering: each numeric column's z-score within its customer (per-customer mean and std
broadcast back to the rows). Planted: every column and statistic builds its own groupby on the string
customer key, so the key is hashed and factorised again two dozen times. Modelled on a code review of a
feature pipeline ("why does every added feature cost a second?")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_ROWS, N_CUST, N_FEAT = 400_000, 40_000, 12
cust = np.array([f"C{i:07d}" for i in range(N_CUST)])
df = pd.DataFrame({"customer": cust[rng.integers(0, N_CUST, N_ROWS)]})
FEATURES = [f"f{j}" for j in range(N_FEAT)]
for j, name in enumerate(FEATURES):
    df[name] = rng.gamma(2.0 + j, 1.0, N_ROWS)


def add_zscores(frame):
    out = {}
    for col in FEATURES:
        mean = frame.groupby("customer")[col].transform("mean")
        std = frame.groupby("customer")[col].transform("std").fillna(0.0)
        out[col + "_z"] = (frame[col] - mean) / (std + 1.0)
    return pd.DataFrame(out)


def main():
    z = add_zscores(df)
    return z.to_numpy()[::97]


if __name__ == "__main__":
    result = main()
