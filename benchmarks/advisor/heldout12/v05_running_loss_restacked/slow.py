"""The running-average loss for the progress display recomputed every step by stacking the whole history of
per-step loss tensors (``torch.stack(history).mean()``), so the logging costs grow with the step count
(forums / code review: "training gets slower the longer it runs"); a running sum does the same in constant
time per step."""
PLANTED = ("redundant", "host_bound")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, FEATURES, STEPS, BATCH = 16_384, 20, 800, 512

X = torch.randn(N, FEATURES)
y = X[:, :5].sum(1, keepdim=True).tanh() + 0.05 * torch.randn(N, 1)

model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.02)


def main():
    gen = torch.Generator().manual_seed(1)
    history = []
    shown = []
    for step in range(STEPS):
        idx = torch.randint(0, N, (BATCH,), generator=gen)
        loss = torch.nn.functional.mse_loss(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.detach())
        running = torch.stack(history).mean().item()
        shown.append(running)
    return torch.tensor(shown)


if __name__ == "__main__":
    result = main()
