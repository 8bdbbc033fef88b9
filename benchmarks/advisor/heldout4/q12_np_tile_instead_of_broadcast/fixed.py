import numpy as np

rng = np.random.default_rng(0)
N, D, MODELS = 180_000, 24, 6
X = rng.standard_normal((N, D)) * rng.uniform(0.5, 5.0, D) + rng.uniform(-3.0, 3.0, D)
W = rng.uniform(-1.0, 1.0, (MODELS, D))


def main():
    mu = X.mean(0)
    sd = X.std(0)
    Z = np.clip((X - mu) / sd, -4.0, 4.0)
    out = []
    for k in range(MODELS):
        score = (Z * W[k]).sum(1)
        top = np.argpartition(score, -500)[-500:]
        out.append(np.sort(score[top]))
        out.append(Z[top].mean(0))
    return np.concatenate(out)


if __name__ == "__main__":
    result = main()
