import numpy as np
import torch

rng = np.random.default_rng(0)
buffer = [rng.standard_normal(128).astype(np.float32) for _ in range(20000)]
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8))


def main():
    out = torch.zeros(8)
    with torch.no_grad():
        for step in range(60):
            idx = rng.integers(0, len(buffer), 256)
            batch = torch.from_numpy(np.stack([buffer[i] for i in idx]))
            out += net(batch).mean(dim=0)
    return out


if __name__ == "__main__":
    result = main()
