"""Implied volatilities of an option chain found with one `scipy.optimize.brentq` call per option on a scalar
Python Black-Scholes price, instead of one vectorised bisection over the whole chain with `scipy.special.ndtr`
(StackOverflow: "computing implied volatility for 20k options takes forever")."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-6
import math

import numpy as np
from scipy.optimize import brentq
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


def bs_call(vol, k, t):
    sq = vol * math.sqrt(t)
    d1 = (math.log(SPOT / k) + (RATE + 0.5 * vol * vol) * t) / sq
    d2 = d1 - sq
    n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return SPOT * n1 - k * math.exp(-RATE * t) * n2


def main():
    out = np.empty(N_OPT)
    for i in range(N_OPT):
        k, t, p = strikes[i], maturities[i], prices[i]
        out[i] = brentq(lambda v: bs_call(v, k, t) - p, 1e-4, 5.0, xtol=1e-12)
    return out


if __name__ == "__main__":
    result = main()
