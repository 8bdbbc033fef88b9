import numpy as np

rng = np.random.default_rng(0)
N_DAYS, PER_DAY, N_SENSORS = 7, 4_000, 32
mixing = rng.normal(size=(N_SENSORS, N_SENSORS)) / np.sqrt(N_SENSORS)
days = [rng.standard_normal((PER_DAY, N_SENSORS)) @ mixing + 0.05 * d for d in range(N_DAYS)]
for d in range(1, N_DAYS):
    days[d][rng.integers(0, PER_DAY, 20)] += rng.normal(0, 3.0, size=(20, N_SENSORS))


def mahalanobis_sq(points: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    D = points - mean
    S_inv = np.linalg.inv(cov)
    return np.einsum("ij,ij->i", D @ S_inv, D)  # only the diagonal terms


def main():
    summary = []
    for d in range(1, N_DAYS):
        ref = days[d - 1]
        mean, cov = ref.mean(axis=0), np.cov(ref, rowvar=False)
        m2 = mahalanobis_sq(days[d], mean, cov)
        threshold = np.quantile(m2, 0.99)
        summary.append([m2.mean(), threshold, np.sort(m2)[-5:].sum(), m2.max()])
    return np.array(summary)


if __name__ == "__main__":
    result = main()
