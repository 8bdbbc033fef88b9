"""Exponential moving average of the weights updated tensor by tensor in a Python loop over state_dict(),
three small ops and a copy per tensor of a model made of many small layers, after every optimizer step
(GitHub issue on a model-EMA helper: "the EMA update costs as much as the training step"); one
torch._foreach_lerp_ over the parameter lists does the same update in one call."""
PLANTED = ("launch_overhead", "host_bound")
TOL = 1e-5
import copy

import torch
from torch import nn

torch.manual_seed(0)

WIDTH = 16
DEPTH = 32


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


class TabularNet(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.inp = nn.Linear(n_in, WIDTH)
        self.blocks = nn.Sequential(*[ResidualBlock(WIDTH) for _ in range(DEPTH)])
        self.out = nn.Linear(WIDTH, n_out)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


class ModelEma:
    def __init__(self, model, decay=0.999):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model, step):
        decay = min(self.decay, (1 + step) / (10 + step))
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
            ema_v.copy_(decay * ema_v + (1.0 - decay) * model_v)


def make_data(n=4096, n_in=20):
    x = torch.randn(n, n_in)
    w = torch.randn(n_in, 1) / n_in ** 0.5
    y = (x @ w + 0.3 * torch.randn(n, 1)).squeeze(1)
    return x, y


def train(steps=120, batch_size=32):
    x, y = make_data()
    model = TabularNet(x.shape[1], 1)
    ema = ModelEma(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.0005, momentum=0.9)
    for step in range(steps):
        idx = torch.arange(step * batch_size, (step + 1) * batch_size) % x.shape[0]
        pred = model(x[idx]).squeeze(1)
        loss = nn.functional.mse_loss(pred, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update(model, step)
    with torch.no_grad():
        return ema.module(x[:256]).squeeze(1)


def main():
    return train()


if __name__ == "__main__":
    result = main()
