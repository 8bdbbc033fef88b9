import numpy as np
from scipy.special import ndtr

rng = np.random.default_rng(0)
N_OPT, SPOT, RATE = 16_000, 100.0, 0.01
strikes = rng.uniform(80.0, 120.0, N_OPT)
maturities = rng.uniform(0.25, 2.0, N_OPT)
true_vol = rng.uniform(0.15, 0.6, N_OPT)


def bs_call_vec(vol, k, t):
    sq = vol * np.sqrt(t)
    d1 = (np.log(SPOT / k) + (RATE + 0.5 * vol * vol) * t) / sq
    return SPOT * ndtr(d1) - k * np.exp(-RATE * t) * ndtr(d1 - sq)


prices = bs_call_vec(true_vol, strikes, maturities)


def main():
    lo = np.full(N_OPT, 1e-4)
    hi = np.full(N_OPT, 5.0)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = bs_call_vec(mid, strikes, maturities) > prices
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return 0.5 * (lo + hi)


if __name__ == "__main__":
    result = main()
