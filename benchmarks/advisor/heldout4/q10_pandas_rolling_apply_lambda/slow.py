"""Technical indicators for a few price series in pandas, where the stochastic oscillator is written as
``close.rolling(14).apply(lambda w: (w.iloc[-1] - w.min()) / (w.max() - w.min()))``: the Python lambda is
called once per window on a freshly built Series (StackOverflow: "pandas rolling apply is extremely
slow"). The fix: the built-in ``rolling(14).min()`` / ``.max()`` reductions."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-6
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
        stoch = close.rolling(14).apply(lambda w: (w.iloc[-1] - w.min()) / (w.max() - w.min()))
        feat = pd.concat([sma, ema, vol, stoch], axis=1).dropna()
        out.append(feat.to_numpy().mean(0))
    return np.concatenate(out + [volume.sum(0)])


if __name__ == "__main__":
    result = main()
