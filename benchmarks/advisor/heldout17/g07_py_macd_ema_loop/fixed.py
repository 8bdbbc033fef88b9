import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_DAYS, N_TICKERS = 5000, 96
CLOSE = pd.DataFrame(
    100.0 * np.exp(np.cumsum(0.01 * rng.standard_normal((N_DAYS, N_TICKERS)), axis=0)),
    index=pd.bdate_range("2015-01-01", periods=N_DAYS),
    columns=[f"T{i:02d}" for i in range(N_TICKERS)],
)


def macd(prices):
    line = prices.ewm(span=12, adjust=False).mean() - prices.ewm(span=26, adjust=False).mean()
    return line - line.ewm(span=9, adjust=False).mean()


def main():
    hist = macd(CLOSE)
    strength = hist.abs().mean()
    return np.concatenate([hist.to_numpy()[::50].ravel(), strength.to_numpy()])


if __name__ == "__main__":
    result = main()
