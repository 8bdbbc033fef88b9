import numpy as np

rng = np.random.default_rng(0)
residuals = rng.standard_normal(3_000_000) * 2.0


def robust_loss(r, delta=1.0):
    a = np.abs(r)
    return np.select([a <= delta, a <= 3 * delta],
                     [0.5 * r * r, delta * (a - 0.5 * delta)],
                     default=delta * (2.5 * delta) + np.log1p(np.maximum(a - 3 * delta, 0.0)))


def main():
    loss = robust_loss(residuals)
    return np.array([loss.sum(), loss.max(), np.median(loss)])


if __name__ == "__main__":
    result = main()
