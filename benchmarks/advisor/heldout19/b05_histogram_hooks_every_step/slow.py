"""MLP classifier training with forward hooks that record activation percentiles and histograms for a dashboard.
Planted: the hooks convert every activation to numpy and run np.percentile/np.histogram on every step, though only every 50th is logged.
Modelled on reports like "training became much slower after I added histogram logging of activations"."""
PLANTED = ("redundant", "host_bound", "hotspot")
TOL = 1e-4
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(64, 128)
Y = torch.randint(0, 10, (64,))
LOG_EVERY = 50
model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
stats = []


def record(module, inputs, output):
    a = output.detach().numpy()
    stats.append((np.percentile(a, [5, 50, 95]), np.histogram(a, bins=40, range=(0.0, 4.0))[0]))


for m in model:
    if isinstance(m, nn.ReLU):
        m.register_forward_hook(record)


def main():
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    logged = []
    for step in range(200):
        stats.clear()
        loss = nn.functional.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % LOG_EVERY == 0:
            logged.append(np.concatenate([np.concatenate([p, h]) for p, h in stats]))
    return np.concatenate(logged + [np.array([loss.item()])])


if __name__ == "__main__":
    result = main()
