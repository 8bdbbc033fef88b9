"""Keeping the best model with copy.deepcopy(model) whenever the loss improves (the transfer-learning
tutorial's best_model_wts = copy.deepcopy(...) moved from per-epoch to per-step; forums: "deepcopy of the
model slows training"): nearly every step rebuilds a whole Module tree and clones all its weights."""
PLANTED = ("redundant", "memory", "host_bound")
TOL = 1e-4
import copy

import torch

torch.manual_seed(0)
layers = []
for _ in range(12):
    layers += [torch.nn.Linear(256, 256), torch.nn.LayerNorm(256), torch.nn.GELU()]
model = torch.nn.Sequential(*layers, torch.nn.Linear(256, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(32, 256)
y = torch.randn(32, 1)


def main():
    best_loss, best_model = float("inf"), None
    for step in range(80):
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if loss.item() < best_loss:
            best_loss = loss.item()
            best_model = copy.deepcopy(model)
    with torch.no_grad():
        return best_model(x)


if __name__ == "__main__":
    result = main()
