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
        vals, vecs = np.linalg.eigh(cov)
        vals, vecs = vals[::-1], vecs[:, ::-1]
        top = vecs[:, :K]
        last = centred[-1]
        residual = last - top @ (top.T @ last)
        out.append(np.concatenate([vals[:K] / vals.sum(), [np.linalg.norm(residual)]]))
    return np.array(out)


if __name__ == "__main__":
    result = main()
