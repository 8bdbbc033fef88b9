import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

N_ROWS = 8000
N_FEATURES = 48
N_CLASSES = 5
BATCH = 64
EPOCHS = 5


def make_table(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_ROWS, N_FEATURES)).astype(np.float32)
    w = rng.normal(size=(N_FEATURES, N_CLASSES)).astype(np.float32)
    y = (X @ w + 0.5 * rng.normal(size=(N_ROWS, N_CLASSES))).argmax(1)
    return X, y


class TableDataset(Dataset):
    def __init__(self, X, y):
        self.rows = torch.from_numpy(X)
        self.labels = torch.from_numpy(y)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i], self.labels[i]


def to_inputs(features, labels):
    return features, labels


def train():
    X, y = make_table()
    ds = TableDataset(X, y)
    loader = DataLoader(ds, batch_size=BATCH, shuffle=True, generator=torch.Generator().manual_seed(1))
    model = nn.Sequential(nn.Linear(N_FEATURES, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for epoch in range(EPOCHS):
        total, seen = 0.0, 0
        for features, labels in loader:
            x, t = to_inputs(features, labels)
            loss = loss_fn(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(t)
            seen += len(t)
        history.append(total / seen)
    return torch.cat([torch.tensor(history), model[0].weight.detach().flatten()])


if __name__ == "__main__":
    result = train()
