"""Per-row sigma-clipped background of detector frames computed with `numpy.ma` masked arrays (bad pixels and
outliers masked, five clipping rounds), whose every operation carries and recombines a full boolean mask
(StackOverflow: "numpy masked arrays are much slower than plain arrays")."""
PLANTED = ("hotspot", "memory")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
N_FRAMES, ROWS, COLS, ROUNDS = 8, 400, 2000, 5


def make_frame():
    frame = rng.normal(100.0, 5.0, (ROWS, COLS)) + rng.normal(0.0, 2.0, (ROWS, 1))
    hits = rng.random((ROWS, COLS)) < 0.01
    frame[hits] += rng.exponential(200.0, hits.sum())
    frame[rng.random((ROWS, COLS)) < 0.002] = np.nan
    return frame


frames = [make_frame() for _ in range(N_FRAMES)]


def clipped_stats(frame):
    m = np.ma.masked_invalid(frame)
    for _ in range(ROUNDS):
        mu = m.mean(axis=1, keepdims=True)
        sd = m.std(axis=1, keepdims=True)
        m = np.ma.masked_where(np.abs(m - mu) > 3.0 * sd, m)
    return np.stack([m.mean(axis=1).filled(np.nan), m.std(axis=1).filled(np.nan), m.count(axis=1)])


def main():
    return np.stack([clipped_stats(f) for f in frames])


if __name__ == "__main__":
    result = main()
