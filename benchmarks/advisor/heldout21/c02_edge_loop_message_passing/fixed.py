import torch

torch.manual_seed(0)
N_NODES, N_EDGES, D = 2000, 12000, 12
src = torch.randint(0, N_NODES, (N_EDGES,))
dst = torch.randint(0, N_NODES, (N_EDGES,))
x0 = torch.randn(N_NODES, D)
weights = [torch.randn(D, D) / D ** 0.5 for _ in range(10)]


def propagate(x, w):
    msg = x[src] @ w
    agg = torch.zeros_like(x).index_add_(0, dst, msg)
    return torch.tanh(x + agg)


def main():
    x = x0
    with torch.no_grad():
        for w in weights:
            x = propagate(x, w)
    return x


if __name__ == "__main__":
    result = main()
