"""A layer constructed inside the function that uses it (forums: "why are my weights random every call /
why is this slow"): the weights are allocated and initialised on every call, then loaded from a state dict."""
PLANTED = ("redundant", "memory")
TOL = 1e-4
import torch
from torch import nn

torch.manual_seed(0)
STATE = nn.Linear(2048, 2048).state_dict()
x = torch.randn(8, 2048)


def predict(batch):
    layer = nn.Linear(2048, 2048)
    layer.load_state_dict(STATE)
    with torch.no_grad():
        return layer(batch)


def main():
    return torch.stack([predict(x) for _ in range(30)]).sum(0)


if __name__ == "__main__":
    result = main()
