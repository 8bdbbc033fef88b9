import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
DAYS, TICKERS = 400, 4
dates = pd.date_range("2020-01-01", periods=DAYS, freq="D")
prices = pd.DataFrame(100.0 * np.exp(np.cumsum(0.01 * rng.standard_normal((DAYS, TICKERS)), axis=0)),
                      index=dates, columns=[f"T{i}" for i in range(TICKERS)])
ticks = pd.DataFrame({"ticker": rng.choice(prices.columns, 1_000_000),
                      "day": rng.integers(0, DAYS, 1_000_000),
                      "volume": rng.integers(1, 500, 1_000_000)})


def main():
    volume = ticks.groupby(["day", "ticker"])["volume"].sum().unstack().fillna(0).to_numpy()
    out = []
    for col in prices.columns:
        close = prices[col]
        sma = close.rolling(20).mean()
        ema = close.ewm(span=12).mean()
        ret = close.pct_change()
        vol = ret.rolling(20).std()
        lo = close.rolling(14).min()
        hi = close.rolling(14).max()
        stoch = (close - lo) / (hi - lo)
        feat = pd.concat([sma, ema, vol, stoch], axis=1).dropna()
        out.append(feat.to_numpy().mean(0))
    return np.concatenate(out + [volume.sum(0)])


if __name__ == "__main__":
    result = main()
