"""Large out-of-place temporaries every iteration (issue 13's report): a * b, + step, * 0.5 on 64 MiB
tensors make three fresh 64 MiB buffers per step, each paying the allocator and first-touch page faults."""
PLANTED = ("memory",)
TOL = 1e-4
import torch

torch.manual_seed(0)
N = 16 * 1024 * 1024          # 64 MiB of float32
a = torch.rand(N)
b = torch.rand(N)


def main():
    total = torch.zeros(())
    for step in range(12):
        c = a * b
        c = c + step
        c = c * 0.5
        total += c[::4096].sum()
    return total


if __name__ == "__main__":
    result = main()
