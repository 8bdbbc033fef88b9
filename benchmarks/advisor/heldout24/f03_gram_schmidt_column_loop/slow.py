"""Orthonormalising a basis with a hand-written modified Gram-Schmidt: a Python double loop issuing tiny dot/axpy tensor ops, where one torch.linalg.qr call does it in LAPACK."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-8
import torch

torch.manual_seed(0)
A = torch.randn(1200, 380, dtype=torch.float64)


def main():
    n, k = A.shape
    Q = A.clone()
    for j in range(k):
        v = Q[:, j]
        for i in range(j):
            q = Q[:, i]
            v -= torch.dot(q, v) * q
        v /= torch.linalg.vector_norm(v)
    return Q


if __name__ == "__main__":
    result = main()
