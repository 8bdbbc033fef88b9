"""Matching each trade to the latest quote at or before its timestamp with a boolean filter of the whole quote
table and `.iloc[-1]` per trade (O(trades x quotes) plus pandas overhead per row) instead of `pd.merge_asof`.
Modelled on StackOverflow questions like "pandas: get last row before timestamp for every row, very slow"."""
PLANTED = ["hotspot", "host_bound"]
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_QUOTES, N_TRADES = 20_000, 2_500

quote_t = np.sort(rng.choice(10_000_000, size=N_QUOTES, replace=False))
mid = 100.0 + np.cumsum(rng.normal(0.0, 0.01, N_QUOTES))
half_spread = rng.uniform(0.005, 0.05, N_QUOTES)
quotes = pd.DataFrame({"time": quote_t, "bid": mid - half_spread, "ask": mid + half_spread})
trade_t = np.sort(rng.integers(quote_t[0], 10_000_000, size=N_TRADES))
trades = pd.DataFrame({"time": trade_t, "price": np.interp(trade_t, quote_t, mid) + rng.normal(0, 0.02, N_TRADES),
                       "size": rng.integers(1, 500, N_TRADES)})


def attach_quotes(trades, quotes):
    bids, asks = [], []
    for t in trades["time"]:
        last = quotes[quotes["time"] <= t].iloc[-1]
        bids.append(last["bid"])
        asks.append(last["ask"])
    out = trades.copy()
    out["bid"], out["ask"] = bids, asks
    return out


def main():
    df = attach_quotes(trades, quotes)
    mid_at_trade = (df["bid"] + df["ask"]) / 2
    df["side"] = np.sign(df["price"] - mid_at_trade)
    df["eff_spread_bps"] = 2e4 * (df["price"] - mid_at_trade).abs() / mid_at_trade
    signed_volume = (df["side"] * df["size"]).cumsum()
    return np.concatenate([df["eff_spread_bps"].to_numpy(), signed_volume.to_numpy(dtype=float)])


if __name__ == "__main__":
    result = main()
