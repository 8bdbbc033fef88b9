"""Feature standardisation and several weighted risk scores over a large numpy feature matrix, written
with ``np.tile`` / ``np.repeat`` to "make the shapes match": the per-column mean and scale vectors and
each model's weight vector are copied out to the full matrix size before the element-wise arithmetic
(StackOverflow: "use broadcasting instead of np.tile", "numpy tile uses too much memory"). The fix: let
broadcasting stretch the vectors."""
PLANTED = ("memory", "redundant")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N, D, MODELS = 180_000, 24, 6
X = rng.standard_normal((N, D)) * rng.uniform(0.5, 5.0, D) + rng.uniform(-3.0, 3.0, D)
W = rng.uniform(-1.0, 1.0, (MODELS, D))


def main():
    mu = X.mean(0)
    sd = X.std(0)
    mu_full = np.tile(mu, (N, 1))
    sd_full = np.tile(sd, (N, 1))
    Z = np.clip((X - mu_full) / sd_full, -4.0, 4.0)
    out = []
    for k in range(MODELS):
        w_full = np.repeat(W[k][None, :], N, axis=0)
        score = (Z * w_full).sum(1)
        top = np.argpartition(score, -500)[-500:]
        out.append(np.sort(score[top]))
        out.append(Z[top].mean(0))
    return np.concatenate(out)


if __name__ == "__main__":
    result = main()
