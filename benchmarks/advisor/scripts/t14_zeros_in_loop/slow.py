"""A zero-filled work buffer allocated inside the loop (forums: "preallocate tensors outside the loop"),
then overwritten entirely."""
PLANTED = ("memory",)
TOL = 1e-4
import torch

torch.manual_seed(0)
x = torch.randn(4_000_000)


def main():
    total = 0.0
    for i in range(30):
        buf = torch.zeros(4_000_000)
        buf.copy_(x)
        buf.mul_(1.0 + i)
        total += float(buf[i * 1000])
    return torch.tensor(total)


if __name__ == "__main__":
    result = main()
