"""A learnable per-feature scale and shift kept as one scalar ``nn.Parameter`` per feature in a
``ParameterList`` and applied column by column (PyTorch forums: "model with many small parameters trains
slowly"), so every step runs hundreds of tiny forward, backward and optimizer operations; one vector parameter
of each kind does the same arithmetic in a few operations."""
PLANTED = ("launch_overhead", "host_bound", "fusion")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, FEATURES, HIDDEN, STEPS, BATCH = 8192, 64, 32, 150, 256

X = torch.randn(N, FEATURES) * torch.linspace(0.1, 5.0, FEATURES) + torch.linspace(-3.0, 3.0, FEATURES)
y = torch.sin(X[:, :8].sum(1) / 4.0) + 0.1 * torch.randn(N)


class FeatureCalibratedMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scales = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(())) for _ in range(FEATURES)])
        self.shifts = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(())) for _ in range(FEATURES)])
        self.body = torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 1))

    def forward(self, x):
        cols = [x[:, i] * self.scales[i] + self.shifts[i] for i in range(FEATURES)]
        return self.body(torch.stack(cols, dim=1)).squeeze(1)


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
