import torch

torch.manual_seed(0)
N, D, C = 1_000_000, 32, 20
labels = torch.multinomial(torch.linspace(1.0, 20.0, C), N, replacement=True)
batches = [(torch.randn(256, D), labels[i * 256:(i + 1) * 256]) for i in range(300)]
model = torch.nn.Sequential(torch.nn.Linear(D, 256), torch.nn.ReLU(), torch.nn.Linear(256, C))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def main():
    total = 0.0
    counts = torch.bincount(labels, minlength=C).float()
    weight = counts.sum() / (C * counts)
    for x, y in batches:
        loss = torch.nn.functional.cross_entropy(model(x), y, weight=weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.detach()
    return total / len(batches)


if __name__ == "__main__":
    result = main()
