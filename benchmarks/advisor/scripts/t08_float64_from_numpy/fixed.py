import numpy as np
import torch

rng = np.random.default_rng(0)
features = torch.from_numpy(rng.standard_normal((2048, 512))).float()
w1 = torch.from_numpy(rng.standard_normal((512, 512)) * 0.05).float()
w2 = torch.from_numpy(rng.standard_normal((512, 64)) * 0.05).float()


def main():
    for _ in range(12):
        h = torch.tanh(features @ w1)
        out = torch.tanh(h @ w1) @ w2
    return out


if __name__ == "__main__":
    result = main()
