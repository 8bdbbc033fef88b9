"""A training loop in float64 because the data came from torch.tensor(numpy float64) and the model was
.double()'d to silence the dtype error."""
PLANTED = ("precision",)
TOL = 1e-2
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)
X = torch.tensor(rng.standard_normal((1024, 256)))
Y = torch.tensor(rng.integers(0, 10, 1024))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.Tanh(), nn.Linear(512, 512), nn.Tanh(), nn.Linear(512, 10)).double()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(15):
        loss = nn.functional.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model[0].weight.detach().float()


if __name__ == "__main__":
    result = main()
