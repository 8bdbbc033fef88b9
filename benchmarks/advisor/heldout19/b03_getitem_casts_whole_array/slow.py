"""Mini-batch training of an MLP regressor from an in-memory numpy feature table through a Dataset/DataLoader.
Planted: __getitem__ casts the whole float64 table to a float32 tensor (astype + from_numpy) to return one row.
Modelled on forum threads like "DataLoader is the bottleneck, __getitem__ takes 100 us per sample"."""
PLANTED = ("input_pipeline", "redundant", "memory", "host_bound")
TOL = 1e-4
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
N, D = 1600, 40
X = rng.standard_normal((N, D))
y = (X[:, :5].sum(axis=1) + 0.1 * rng.standard_normal(N)).astype(np.float32)


class TableDataset(Dataset):
    def __init__(self, features, targets):
        self.features = features
        self.targets = targets

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        table = torch.from_numpy(self.features.astype(np.float32))
        return table[i], torch.tensor(self.targets[i])


def main():
    model = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(TableDataset(X, y), batch_size=50, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    losses = []
    for _ in range(2):
        for xb, yb in loader:
            loss = ((model(xb).squeeze(1) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
