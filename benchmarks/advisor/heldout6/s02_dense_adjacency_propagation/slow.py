"""Smooths node predictions over a citation-style graph by personalised-PageRank propagation, with the
normalised adjacency held as a dense N x N matrix (GitHub issues and forum threads on graph networks:
"propagation is slow and uses gigabytes for a graph with a few edges per node").

Under 0.2 % of the matrix is non-zero, yet every propagation step multiplies the whole dense matrix."""
PLANTED = ("hotspot", "redundant", "utilization", "memory")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, F_IN, C, DEG, STEPS, ALPHA = 7000, 128, 16, 5, 10, 0.1

src = torch.randint(0, N, (N * DEG,))
dst = torch.randint(0, N, (N * DEG,))
features = torch.randn(N, F_IN)
W = torch.randn(F_IN, C) / F_IN ** 0.5


def normalised_adjacency():
    a = torch.zeros(N, N)
    a[src, dst] = 1.0
    a[dst, src] = 1.0
    a += torch.eye(N)
    a = (a > 0).float()
    d = a.sum(1).rsqrt()
    return d[:, None] * a * d[None, :]


def main():
    a_hat = normalised_adjacency()
    h0 = (features @ W).softmax(1)
    h = h0
    for _ in range(STEPS):
        h = (1 - ALPHA) * (a_hat @ h) + ALPHA * h0
    return h.argmax(1).bincount(minlength=C).float() + h.sum(0)


if __name__ == "__main__":
    result = main()
