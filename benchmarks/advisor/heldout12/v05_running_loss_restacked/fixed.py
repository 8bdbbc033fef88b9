import torch

torch.manual_seed(0)
N, FEATURES, STEPS, BATCH = 16_384, 20, 800, 512

X = torch.randn(N, FEATURES)
y = X[:, :5].sum(1, keepdim=True).tanh() + 0.05 * torch.randn(N, 1)

model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.02)


def main():
    gen = torch.Generator().manual_seed(1)
    total = 0.0
    shown = []
    for step in range(STEPS):
        idx = torch.randint(0, N, (BATCH,), generator=gen)
        loss = torch.nn.functional.mse_loss(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        shown.append(total / (step + 1))
    return torch.tensor(shown)


if __name__ == "__main__":
    result = main()
