import torch

torch.manual_seed(0)
torch.set_grad_enabled(False)
N_BATCH, B, T, F, V = 240, 2, 400, 80, 32
model = torch.nn.Sequential(torch.nn.Linear(F, 128), torch.nn.ReLU(), torch.nn.Linear(128, V))
features = [torch.randn(B, T, F) for _ in range(N_BATCH)]


def greedy_decode(logits):
    best = logits.argmax(-1)
    keep = best != 0
    keep[:, 1:] &= best[:, 1:] != best[:, :-1]
    return [row[k].tolist() for row, k in zip(best, keep)]


def main():
    stats = []
    for x in features:
        for seq in greedy_decode(model(x)):
            stats += [len(seq), sum(seq), sum(i * c for i, c in enumerate(seq)) % 100003]
    return torch.tensor(stats, dtype=torch.float64)


if __name__ == "__main__":
    result = main()
