"""A replay-buffer batch built with torch.tensor on a list of numpy arrays (GitHub issues: "UserWarning:
Creating a tensor from a list of numpy.ndarrays is extremely slow", pytorch#13918 and many RL repos):
every sampled batch is converted value by value before a small Q-network step."""
PLANTED = ("input_pipeline", "host_bound")
TOL = 1e-4
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
rng = np.random.default_rng(0)
buffer = [rng.standard_normal(128).astype(np.float32) for _ in range(20000)]
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8))


def main():
    out = torch.zeros(8)
    with torch.no_grad():
        for step in range(60):
            idx = rng.integers(0, len(buffer), 256)
            batch = torch.tensor([buffer[i] for i in idx], dtype=torch.float32)
            out += net(batch).mean(dim=0)
    return out


if __name__ == "__main__":
    result = main()
