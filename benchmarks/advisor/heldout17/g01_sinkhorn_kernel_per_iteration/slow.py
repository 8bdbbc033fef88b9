"""Batched entropic optimal transport (Sinkhorn) between point clouds; the Gibbs kernel exp(-C/eps) is recomputed
from the fixed cost matrix twice in every Sinkhorn iteration instead of once per solve (forums: "my Sinkhorn
loss is slow", a loop written straight from the paper's pseudo-code)."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch

torch.manual_seed(0)
B, N, M = 8, 256, 256
x = torch.rand(B, N, 2)
y = torch.rand(B, M, 2) * 0.8 + 0.1
a = torch.full((B, N), 1.0 / N)
b = torch.full((B, M), 1.0 / M)


def sinkhorn(C, a, b, eps=0.05, n_iter=50):
    u = torch.ones_like(a)
    v = torch.ones_like(b)
    for _ in range(n_iter):
        u = a / torch.bmm(torch.exp(-C / eps), v.unsqueeze(-1)).squeeze(-1)
        v = b / torch.bmm(torch.exp(-C / eps).transpose(1, 2), u.unsqueeze(-1)).squeeze(-1)
    P = u.unsqueeze(-1) * torch.exp(-C / eps) * v.unsqueeze(1)
    return (P * C).sum(dim=(1, 2))


def main():
    C = torch.cdist(x, y) ** 2
    C = C / C.amax(dim=(1, 2), keepdim=True)
    costs = []
    for eps in (0.2, 0.1, 0.05):
        costs.append(sinkhorn(C, a, b, eps=eps))
    return torch.stack(costs)


if __name__ == "__main__":
    result = main()
