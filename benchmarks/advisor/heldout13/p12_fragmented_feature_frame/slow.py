"""Demand-forecasting baseline: a feature table of lagged demand and trailing rolling means is built from
an hourly demand series, then a linear model is fitted by mini-batch SGD with batches of rows drawn from
the table, and evaluated on the last weeks (modelled on a pandas GitHub issue / StackOverflow thread
about the "DataFrame is highly fragmented" PerformanceWarning in a feature-engineering loop)."""
PLANTED = ("memory", "layout", "hotspot")
TOL = 1e-6
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_HOURS, N_LAGS, WINDOWS = 8_000, 168, (3, 6, 12, 24, 48, 72, 168)
N_STEPS, BATCH, LR = 60, 256, 0.01

hours = np.arange(N_HOURS)
demand = (50 + 10 * np.sin(2 * np.pi * hours / 24) + 5 * np.sin(2 * np.pi * hours / 168)
          + np.cumsum(rng.normal(0, 0.3, N_HOURS)) + rng.normal(0, 2, N_HOURS))


def build_features(y):
    df = pd.DataFrame({"y": y})
    for k in range(1, N_LAGS + 1):
        df[f"lag_{k}"] = df["y"].shift(k)
    for w in WINDOWS:
        df[f"mean_{w}"] = df["y"].shift(1).rolling(w).mean()
        df[f"std_{w}"] = df["y"].shift(1).rolling(w).std()
    return df.dropna().reset_index(drop=True)


def fit(df):
    cols = [c for c in df.columns if c != "y"]
    n_train = len(df) - 24 * 14
    mu = df[cols].iloc[:n_train].mean().to_numpy()
    sd = df[cols].iloc[:n_train].std().to_numpy()
    w = np.zeros(len(cols))
    b = 0.0
    g = np.random.default_rng(1)
    for _ in range(N_STEPS):
        idx = g.integers(0, n_train, BATCH)
        batch = df.iloc[idx]
        x = (batch[cols].to_numpy() - mu) / sd
        err = x @ w + b - batch["y"].to_numpy()
        w -= LR * x.T @ err / BATCH
        b -= LR * err.mean()
    test = df.iloc[n_train:]
    pred = ((test[cols].to_numpy() - mu) / sd) @ w + b
    return np.concatenate([w, [b], pred])


if __name__ == "__main__":
    result = fit(build_features(demand))
