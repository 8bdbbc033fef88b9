import torch

torch.manual_seed(0)
n, noise = 700, 1e-2
X = torch.rand(n, 3, dtype=torch.float64)
Xs = torch.rand(200, 3, dtype=torch.float64)
K = torch.exp(-0.5 * torch.cdist(X, X) ** 2 / 0.3 ** 2)
Ks = torch.exp(-0.5 * torch.cdist(Xs, X) ** 2 / 0.3 ** 2)
Y = torch.randn(40, n, 1, dtype=torch.float64)  # 40 target vectors observed at the same inputs


def main():
    L = torch.linalg.cholesky(K + noise * torch.eye(n, dtype=torch.float64))  # factorised once
    preds = []
    for y in Y:
        alpha = torch.cholesky_solve(y, L)
        preds.append(Ks @ alpha)
    return torch.cat(preds, dim=1)


if __name__ == "__main__":
    result = main()
