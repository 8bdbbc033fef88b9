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


def mean_std(frame, keep):
    n = keep.sum(axis=1, keepdims=True)
    mu = np.where(keep, frame, 0.0).sum(axis=1, keepdims=True) / n
    d = np.where(keep, frame - mu, 0.0)
    return mu, np.sqrt((d * d).sum(axis=1, keepdims=True) / n), n


def clipped_stats(frame):
    keep = np.isfinite(frame)
    for _ in range(ROUNDS):
        mu, sd, _ = mean_std(frame, keep)
        keep &= ~(np.abs(frame - mu) > 3.0 * sd)
    mu, sd, n = mean_std(frame, keep)
    return np.stack([mu[:, 0], sd[:, 0], n[:, 0]])


def main():
    return np.stack([clipped_stats(f) for f in frames])


if __name__ == "__main__":
    result = main()
