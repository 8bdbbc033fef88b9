"""Rolling-window PCA over a multichannel sensor recording that decomposes each window's covariance matrix
with the general np.linalg.eig, which ignores that the matrix is symmetric, returns eigenvalues in no order
and takes the slow nonsymmetric route, instead of np.linalg.eigh (StackOverflow question: "eig vs eigh for
a covariance matrix: why is eig so slow and why are my components unsorted?")."""
PLANTED = ("hotspot",)
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
T, C, WIN, STEP, K = 16_000, 96, 512, 64, 4
mixing = rng.normal(size=(6, C))
signal = np.cumsum(rng.normal(size=(T, 6)), axis=0) @ mixing + rng.normal(scale=2.0, size=(T, C))


def main():
    out = []
    for start in range(0, T - WIN + 1, STEP):
        window = signal[start:start + WIN]
        centred = window - window.mean(axis=0)
        cov = centred.T @ centred / (WIN - 1)
        vals, vecs = np.linalg.eig(cov)
        order = np.argsort(vals.real)[::-1]
        vals, vecs = vals.real[order], vecs.real[:, order]
        top = vecs[:, :K]
        last = centred[-1]
        residual = last - top @ (top.T @ last)
        out.append(np.concatenate([vals[:K] / vals.sum(), [np.linalg.norm(residual)]]))
    return np.array(out)


if __name__ == "__main__":
    result = main()
