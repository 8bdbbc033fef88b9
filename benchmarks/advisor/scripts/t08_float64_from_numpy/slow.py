"""float64 by accident: data built with numpy (float64 by default) turned into tensors with
torch.from_numpy, and the model cast to double to match (forums: "expected Double but found Float",
fixed the wrong way round)."""
PLANTED = ("precision",)
TOL = 1e-2
import numpy as np
import torch

rng = np.random.default_rng(0)
features = torch.from_numpy(rng.standard_normal((2048, 512)))
w1 = torch.from_numpy(rng.standard_normal((512, 512)) * 0.05)
w2 = torch.from_numpy(rng.standard_normal((512, 64)) * 0.05)


def main():
    for _ in range(12):
        h = torch.tanh(features @ w1)
        out = torch.tanh(h @ w1) @ w2
    return out.float()


if __name__ == "__main__":
    result = main()
