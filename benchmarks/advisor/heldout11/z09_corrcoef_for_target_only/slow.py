"""Univariate feature screening that gets each feature's correlation with the target from
``np.corrcoef(np.column_stack([y, X]), rowvar=False)[0, 1:]``: the full (p + 1) x (p + 1) correlation matrix
is computed to read one row of it, once per cross-validation fold (StackOverflow: "correlation of every
column with one column"; the answer standardises and takes one matrix-vector product)."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-8
import numpy as np

rng = np.random.default_rng(0)
N, P, K_KEEP, FOLDS = 3000, 1600, 40, 4
latent = rng.normal(size=(N, 20))
X = latent @ rng.normal(size=(20, P)) + rng.normal(size=(N, P))
beta = np.zeros(P)
beta[rng.choice(P, 25, replace=False)] = rng.normal(0, 1, 25)
y = X @ beta + rng.normal(0, 2.0, N)


def target_correlations(Xtr, ytr):
    return np.corrcoef(np.column_stack([ytr, Xtr]), rowvar=False)[0, 1:]


def ridge(Xtr, ytr, lam=1.0):
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Z = (Xtr - mu) / sd
    coef = np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T @ (ytr - ytr.mean()))
    return lambda Xte: ((Xte - mu) / sd) @ coef + ytr.mean()


def main():
    folds = np.array_split(rng.permutation(N), FOLDS)
    scores = []
    for f in range(FOLDS):
        te = folds[f]
        tr = np.concatenate([folds[g] for g in range(FOLDS) if g != f])
        r = target_correlations(X[tr], y[tr])
        keep = np.argsort(-np.abs(r))[:K_KEEP]
        model = ridge(X[tr][:, keep], y[tr])
        resid = y[te] - model(X[te][:, keep])
        scores.append(1.0 - resid.var() / y[te].var())
        scores.append(np.abs(r).max())
    return np.array(scores)


if __name__ == "__main__":
    result = main()
