"""Evolution-strategies search samples each generation's correlated perturbations as `randn @ L.T`, but computes
the Cholesky factor `L` of the fixed search covariance again inside the generation loop (code review: "this
factorisation is loop-invariant")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-6
import torch

torch.manual_seed(0)
D, POP, ELITE, GENS = 384, 32, 8, 700
SIGMA = 0.2
A = torch.randn(D, D) / D**0.5
C = A @ A.T + 0.5 * torch.eye(D)
target = torch.randn(D)
scale = torch.rand(D) + 0.5


def fitness(x):
    return ((x - target) ** 2 * scale).sum(-1)


def main():
    mean = torch.zeros(D)
    best = []
    for _ in range(GENS):
        L = torch.linalg.cholesky(SIGMA**2 * C)
        pop = mean + torch.randn(POP, D) @ L.T
        f = fitness(pop)
        elite = pop[f.argsort()[:ELITE]]
        mean = 0.7 * mean + 0.3 * elite.mean(0)
        best.append(f.min())
    return torch.stack(best + [fitness(mean)])


if __name__ == "__main__":
    result = main()
