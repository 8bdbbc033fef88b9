import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)
X = torch.tensor(rng.standard_normal((1024, 256)), dtype=torch.float32)
Y = torch.tensor(rng.integers(0, 10, 1024))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.Tanh(), nn.Linear(512, 512), nn.Tanh(), nn.Linear(512, 10)).double()
    model = model.float()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(15):
        loss = nn.functional.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model[0].weight.detach()


if __name__ == "__main__":
    result = main()
