import torch
import torch.nn.functional as F

torch.manual_seed(0)


class FrozenProjection(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weight", (torch.randn(2048, 2048) * 0.02).half())
        self._w = None

    def forward(self, x):
        if self._w is None or self._w.dtype != x.dtype:
            self._w = self.weight.to(x.dtype)  # converted once, reused by every call
        return F.linear(x, self._w)


proj = FrozenProjection()
xs = torch.randn(40, 16, 2048)


def main():
    acc = torch.zeros(16, 2048)
    with torch.no_grad():
        for _ in range(3):
            for x in xs:
                acc += torch.tanh(proj(x))
    return acc


if __name__ == "__main__":
    result = main()
