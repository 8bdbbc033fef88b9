"""Two-sample tests on per-step timings, in numpy only (no scipy): is a difference larger than the noise?

A profile taken with ``--repeat N`` (or with ``cann_nb.step()`` marks) has N step spans; per step we
get the end-to-end step time and each op's time. Comparing two such profiles, each quantity gives two
samples (N base steps, M new steps), and a test says whether their means differ beyond run-to-run noise.

* ``welch`` (default): Welch's unequal-variance t-test, two-sided. Works from 2 steps per side and
  keeps its power with few steps (3 vs 3 can be significant when the noise is small), which matters
  for CI jobs that cannot afford many repeats. A single outlier step inflates the variance, which
  makes the test more conservative, never less.
* ``mannwhitney``: the Mann-Whitney U test, two-sided; exact distribution for small samples without
  ties (n1, n2 <= 20), else the normal approximation with tie and continuity corrections. Rank-based,
  robust to outliers, but it cannot reach p < 0.05 with fewer than 4 steps per side (3 vs 3 gives at
  best p = 0.1).

The p-value of Welch's test uses the Student t distribution through the regularised incomplete beta
function (continued fraction, Numerical Recipes 6.4), vectorised over many ops at once.
"""

from __future__ import annotations

import math

import numpy as np

TESTS = ("welch", "mannwhitney")
DEFAULT_TEST = "welch"
DEFAULT_ALPHA = 0.05
MIN_SAMPLES = 2      # steps per side below which significance is unknown

_lgamma = np.vectorize(math.lgamma, otypes=[float])


def _betacf(a, b, x, iterations: int = 300, eps: float = 3e-14):
    """Continued fraction of the incomplete beta function (modified Lentz), elementwise."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, iterations + 1):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) < eps):
            break
    return h


def betainc(a, b, x) -> np.ndarray:
    """The regularised incomplete beta function I_x(a, b), elementwise (a, b > 0, 0 <= x <= 1)."""
    a, b, x = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(a, b, x))
    out = np.full(x.shape, np.nan)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(x) & (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    mid = ok & (x > 0) & (x < 1)
    if mid.any():
        am, bm, xm = a[mid], b[mid], x[mid]
        swap = xm > (am + 1.0) / (am + bm + 2.0)   # the fraction converges fast below this point
        aa, bb, xx = np.where(swap, bm, am), np.where(swap, am, bm), np.where(swap, 1.0 - xm, xm)
        log_front = aa * np.log(xx) + bb * np.log1p(-xx) + _lgamma(aa + bb) - _lgamma(aa) - _lgamma(bb)
        val = np.exp(log_front) * _betacf(aa, bb, xx) / aa
        out[mid] = np.clip(np.where(swap, 1.0 - val, val), 0.0, 1.0)
    return out


def t_two_sided_p(t, df) -> np.ndarray:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom: P(|T| >= |t|)."""
    t, df = np.broadcast_arrays(np.asarray(t, dtype=float), np.asarray(df, dtype=float))
    p = np.full(t.shape, np.nan)
    inf = np.isinf(t) & (df > 0)
    p[inf] = 0.0
    ok = np.isfinite(t) & np.isfinite(df) & (df > 0)
    if ok.any():
        p[ok] = betainc(df[ok] / 2.0, 0.5, df[ok] / (df[ok] + t[ok] ** 2))
    return p


def welch(base: np.ndarray, new: np.ndarray) -> dict:
    """Welch's t-test between the rows of ``base`` (k x n1) and ``new`` (k x n2), or two 1-D samples.

    Returns arrays (scalars for 1-D input): ``t`` (positive when new > base), ``df``, ``p`` (two-sided;
    NaN with fewer than 2 samples on a side). Zero variance on both sides: p = 0 if the means differ,
    1 if they are equal (a deterministic difference is certain).
    """
    one_d = np.ndim(base) == 1 and np.ndim(new) == 1
    b = np.atleast_2d(np.asarray(base, dtype=float))
    n = np.atleast_2d(np.asarray(new, dtype=float))
    n1, n2 = b.shape[1], n.shape[1]
    k = max(b.shape[0], n.shape[0])
    t = np.full(k, np.nan)
    df = np.full(k, np.nan)
    p = np.full(k, np.nan)
    if n1 >= MIN_SAMPLES and n2 >= MIN_SAMPLES:
        m1, m2 = b.mean(axis=1), n.mean(axis=1)
        s1, s2 = b.var(axis=1, ddof=1) / n1, n.var(axis=1, ddof=1) / n2
        se2 = s1 + s2
        diff = m2 - m1
        pos = se2 > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(pos, diff / np.sqrt(np.where(pos, se2, 1.0)), np.sign(diff) * np.inf)
            den = s1 ** 2 / (n1 - 1) + s2 ** 2 / (n2 - 1)
            df = np.where(pos & (den > 0), se2 ** 2 / np.where(den > 0, den, 1.0), float(n1 + n2 - 2))
        p = t_two_sided_p(t, df)
        zero = ~pos
        p = np.where(zero & (diff == 0), 1.0, np.where(zero, 0.0, p))
        t = np.where(zero & (diff == 0), 0.0, t)
    if one_d:
        return {"t": float(t[0]), "df": float(df[0]), "p": float(p[0])}
    return {"t": t, "df": df, "p": p}


def _ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) and the sizes of the tie groups."""
    order = np.argsort(values, kind="mergesort")
    sv = values[order]
    starts = np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]])
    sizes = np.diff(np.r_[starts, len(sv)])
    avg = starts + (sizes + 1) / 2.0
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(avg, sizes)
    return ranks, sizes


def _u_distribution(n1: int, n2: int) -> np.ndarray:
    """Number of arrangements giving each U (0..n1*n2), no ties: f(n1,n2,u) = f(n1-1,n2,u-n2) + f(n1,n2-1,u)."""
    # table[i][j] is the distribution for sizes (i, j)
    prev = [np.ones(1) for _ in range(n2 + 1)]  # i = 0: U is always 0
    for i in range(1, n1 + 1):
        cur = [np.ones(1)]  # j = 0
        for j in range(1, n2 + 1):
            size = i * j + 1
            d = np.zeros(size)
            a = prev[j]  # (i-1, j), shifted by j
            d[j:j + len(a)] += a
            c = cur[j - 1]  # (i, j-1)
            d[:len(c)] += c
            cur.append(d)
        prev = cur
    return prev[n2]


def mann_whitney(base, new) -> dict:
    """Two-sided Mann-Whitney U test between two 1-D samples: ``{"u", "p", "method"}``.

    ``u`` counts pairs where new > base (ties count one half), so u > n1*n2/2 means new tends larger.
    """
    b = np.asarray(base, dtype=float).ravel()
    n = np.asarray(new, dtype=float).ravel()
    n1, n2 = len(b), len(n)
    if n1 < MIN_SAMPLES or n2 < MIN_SAMPLES:
        return {"u": math.nan, "p": math.nan, "method": "too few samples"}
    ranks, ties = _ranks(np.concatenate([b, n]))
    u = float(ranks[n1:].sum() - n2 * (n2 + 1) / 2.0)
    has_ties = bool((ties > 1).any())
    if not has_ties and n1 <= 20 and n2 <= 20:
        dist = _u_distribution(n1, n2)
        cdf = np.cumsum(dist) / dist.sum()
        ui = int(round(u))
        lower = cdf[ui]
        upper = 1.0 - (cdf[ui - 1] if ui > 0 else 0.0)
        return {"u": u, "p": float(min(1.0, 2.0 * min(lower, upper))), "method": "exact"}
    nn = n1 + n2
    mu = n1 * n2 / 2.0
    tie_term = float((ties ** 3 - ties).sum()) / (nn * (nn - 1))
    sigma = math.sqrt(n1 * n2 / 12.0 * ((nn + 1) - tie_term))
    if sigma == 0:
        return {"u": u, "p": 1.0, "method": "normal"}
    z = (abs(u - mu) - 0.5) / sigma
    return {"u": u, "p": float(min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0)))), "method": "normal"}


def noise_band(base, new, alpha: float = DEFAULT_ALPHA) -> float:
    """Half-width of the (1 - alpha) confidence interval of ``mean(new) - mean(base)`` (Welch): a change
    of the means smaller than this is not told apart from the run-to-run noise. NaN with fewer than 2
    samples on a side."""
    b, n = np.asarray(base, float), np.asarray(new, float)
    if len(b) < MIN_SAMPLES or len(n) < MIN_SAMPLES:
        return math.nan
    s1, s2 = b.var(ddof=1) / len(b), n.var(ddof=1) / len(n)
    se = math.sqrt(s1 + s2)
    if se == 0:
        return 0.0
    den = s1 ** 2 / (len(b) - 1) + s2 ** 2 / (len(n) - 1)
    df = (s1 + s2) ** 2 / den if den > 0 else float(len(b) + len(n) - 2)
    lo, hi = 0.0, 1.0
    while float(t_two_sided_p(hi, df)) > alpha:   # the critical t: P(|T| >= t) = alpha, by bisection
        hi *= 2.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if float(t_two_sided_p(mid, df)) > alpha else (lo, mid)
    return hi * se


def p_value(base, new, method: str = DEFAULT_TEST) -> float:
    """p-value of ``method`` between two 1-D samples (NaN when a side has fewer than 2 samples)."""
    if method == "welch":
        return welch(np.asarray(base, float), np.asarray(new, float))["p"]
    if method == "mannwhitney":
        return mann_whitney(base, new)["p"]
    raise ValueError(f"unknown test {method!r}; choose from {', '.join(TESTS)}")


def p_values(base: np.ndarray, new: np.ndarray, method: str = DEFAULT_TEST) -> np.ndarray:
    """p-values row by row for k x n1 and k x n2 sample matrices."""
    base = np.asarray(base, float)
    new = np.asarray(new, float)
    if not len(base):
        return np.empty(0)
    if method == "welch":
        return welch(base, new)["p"]
    if method == "mannwhitney":
        return np.array([mann_whitney(b, n)["p"] for b, n in zip(base, new)], dtype=float)
    raise ValueError(f"unknown test {method!r}; choose from {', '.join(TESTS)}")


def describe(method: str = DEFAULT_TEST, alpha: float = DEFAULT_ALPHA) -> str:
    name = {"welch": "Welch's t-test", "mannwhitney": "Mann-Whitney U test"}.get(method, method)
    return f"{name} (two-sided) on per-step samples, significant when p < {alpha:g}"
