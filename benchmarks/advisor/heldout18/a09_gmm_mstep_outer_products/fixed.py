import numpy as np

rng = np.random.default_rng(0)
N, D, K, ITERS = 20_000, 16, 4, 8
true_means = rng.normal(0.0, 4.0, size=(K, D))
X = np.concatenate([rng.normal(m, 1.0 + 0.3 * k, size=(N // K, D)) for k, m in enumerate(true_means)])


def log_gauss(X, mean, cov):
    diff = X - mean
    inv = np.linalg.inv(cov)
    _, logdet = np.linalg.slogdet(cov)
    maha = ((diff @ inv) * diff).sum(axis=1)
    return -0.5 * (maha + logdet + X.shape[1] * np.log(2.0 * np.pi))


def e_step(X, weights, means, covs):
    logp = np.stack([np.log(weights[k]) + log_gauss(X, means[k], covs[k]) for k in range(len(weights))], axis=1)
    logp -= logp.max(axis=1, keepdims=True)
    resp = np.exp(logp)
    return resp / resp.sum(axis=1, keepdims=True)


def m_step(X, resp):
    nk = resp.sum(axis=0)
    means = (resp.T @ X) / nk[:, None]
    covs = []
    for k in range(resp.shape[1]):
        diff = X - means[k]
        cov = (diff.T @ (resp[:, k, None] * diff)) / nk[k]
        covs.append(cov + 1e-6 * np.eye(X.shape[1]))
    return nk / X.shape[0], means, np.stack(covs)


def fit():
    weights = np.full(K, 1.0 / K)
    means = X[rng.choice(N, size=K, replace=False)]
    covs = np.stack([np.eye(D) * X.var(axis=0).mean() for _ in range(K)])
    for _ in range(ITERS):
        resp = e_step(X, weights, means, covs)
        weights, means, covs = m_step(X, resp)
    return np.concatenate([weights, means.ravel(), covs.ravel()])


if __name__ == "__main__":
    result = fit()
