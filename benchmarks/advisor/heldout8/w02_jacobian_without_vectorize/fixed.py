import torch
from torch import nn
from torch.autograd.functional import jacobian

N_IN = 32
N_OUT = 96
N_POINTS = 64


def build_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(N_IN, 128), nn.Tanh(),
        nn.Linear(128, 128), nn.Tanh(),
        nn.Linear(128, N_OUT),
    )


def sensitivity_report(model, points):
    def f(x):
        return model(x)

    rows = []
    for x in points:
        jac = jacobian(f, x, vectorize=True)
        rows.append(jac.abs().mean(dim=0))
    return torch.stack(rows)


def main():
    model = build_model()
    g = torch.Generator().manual_seed(1)
    points = torch.randn(N_POINTS, N_IN, generator=g)
    return sensitivity_report(model, points)


if __name__ == "__main__":
    result = main()
