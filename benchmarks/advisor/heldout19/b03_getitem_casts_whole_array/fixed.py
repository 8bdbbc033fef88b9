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
        self.features = torch.from_numpy(features.astype(np.float32))
        self.targets = targets

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.features[i], torch.tensor(self.targets[i])


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
