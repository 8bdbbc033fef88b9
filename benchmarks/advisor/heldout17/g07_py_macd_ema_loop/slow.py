"""MACD trading indicator for a panel of daily closing prices: the three exponential moving averages (12, 26 and
9-day) are written as Python loops over NumPy arrays, element by element per ticker, because "a recursive filter
cannot be vectorised" (StackOverflow: "fast exponential moving average in Python")."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_DAYS, N_TICKERS = 5000, 96
CLOSE = pd.DataFrame(
    100.0 * np.exp(np.cumsum(0.01 * rng.standard_normal((N_DAYS, N_TICKERS)), axis=0)),
    index=pd.bdate_range("2015-01-01", periods=N_DAYS),
    columns=[f"T{i:02d}" for i in range(N_TICKERS)],
)


def ema(x, span):
    alpha = 2.0 / (span + 1.0)
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = alpha * x[i] + (1.0 - alpha) * out[i - 1]
    return out


def macd(prices):
    cols = {}
    for name in prices.columns:
        x = prices[name].to_numpy()
        line = ema(x, 12) - ema(x, 26)
        cols[name] = line - ema(line, 9)
    return pd.DataFrame(cols, index=prices.index)


def main():
    hist = macd(CLOSE)
    strength = hist.abs().mean()
    return np.concatenate([hist.to_numpy()[::50].ravel(), strength.to_numpy()])


if __name__ == "__main__":
    result = main()
