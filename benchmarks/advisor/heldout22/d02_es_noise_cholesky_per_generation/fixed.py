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
    Lt = torch.linalg.cholesky(SIGMA**2 * C).T
    for _ in range(GENS):
        pop = mean + torch.randn(POP, D) @ Lt
        f = fitness(pop)
        elite = pop[f.argsort()[:ELITE]]
        mean = 0.7 * mean + 0.3 * elite.mean(0)
        best.append(f.min())
    return torch.stack(best + [fitness(mean)])


if __name__ == "__main__":
    result = main()
