"""Fits a Chebyshev series to noisy samples with Adam, rebuilding the basis T_0..T_K-1 of the fixed sample
points by the three-term recurrence on every step, about 190 small tensor ops (StackOverflow: "spectral
regression in PyTorch is slow"). The points never change, so the basis could be built once before the loop."""
PLANTED = ("redundant", "hotspot", "launch_overhead")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, K, STEPS = 8192, 64, 400
x = torch.linspace(-1.0, 1.0, N)
y = torch.sin(6.0 * x) * torch.exp(-x * x) + 0.05 * torch.randn(N)


def chebyshev_basis(t, k):
    cols = [torch.ones_like(t), t]
    for _ in range(2, k):
        cols.append(2.0 * t * cols[-1] - cols[-2])
    return torch.stack(cols, dim=1)


def fit():
    coef = torch.zeros(K, requires_grad=True)
    opt = torch.optim.Adam([coef], lr=0.02)
    losses = []
    for _ in range(STEPS):
        basis = chebyshev_basis(x, K)
        pred = basis @ coef
        loss = torch.mean((pred - y) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.cat([coef.detach(), torch.stack(losses)[-10:]])


if __name__ == "__main__":
    result = fit()
