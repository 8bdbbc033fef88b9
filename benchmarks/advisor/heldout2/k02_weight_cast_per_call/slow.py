"""A frozen projection kept in half precision "to save memory" and cast back with .to(x.dtype) inside
forward (forums: "casting weights every forward pass", mixed-precision ports): every call re-converts
the same 2048x2048 matrix before a small-batch matmul."""
PLANTED = ("redundant", "memory")
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)


class FrozenProjection(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weight", (torch.randn(2048, 2048) * 0.02).half())

    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype))


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
