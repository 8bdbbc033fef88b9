import torch

torch.manual_seed(0)
N, FEATURES, HIDDEN, STEPS, BATCH = 8192, 64, 32, 150, 256

X = torch.randn(N, FEATURES) * torch.linspace(0.1, 5.0, FEATURES) + torch.linspace(-3.0, 3.0, FEATURES)
y = torch.sin(X[:, :8].sum(1) / 4.0) + 0.1 * torch.randn(N)


class FeatureCalibratedMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scales = torch.nn.Parameter(torch.ones(FEATURES))
        self.shifts = torch.nn.Parameter(torch.zeros(FEATURES))
        self.body = torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 1))

    def forward(self, x):
        return self.body(x * self.scales + self.shifts).squeeze(1)


def main():
    model = FeatureCalibratedMLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(1)
    for step in range(STEPS):
        idx = torch.randint(0, N, (BATCH,), generator=gen)
        loss = torch.nn.functional.mse_loss(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return model(X[:512])


if __name__ == "__main__":
    result = main()
