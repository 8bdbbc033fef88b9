import torch
from torch import nn

torch.manual_seed(0)
STATE = nn.Linear(2048, 2048).state_dict()
x = torch.randn(8, 2048)
LAYER = nn.Linear(2048, 2048)
LAYER.load_state_dict(STATE)


def predict(batch):
    with torch.no_grad():
        return LAYER(batch)


def main():
    return torch.stack([predict(x) for _ in range(30)]).sum(0)


if __name__ == "__main__":
    result = main()
