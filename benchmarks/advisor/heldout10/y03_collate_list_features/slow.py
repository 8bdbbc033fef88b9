"""A tabular classifier whose Dataset returns each row's features as a Python list of floats (modelled on a
PyTorch forums thread: "DataLoader returns a list of tensors instead of a tensor, and training is slow").

The default collate function transposes a batch of lists into one small float64 tensor per feature column,
which the training loop then stacks back and casts; the rows could be handed out as slices of one float32
tensor built once.
"""
PLANTED = ("input_pipeline", "host_bound")
TOL = 1e-4

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
        self.rows = X.tolist()
        self.labels = y.tolist()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i], self.labels[i]


def to_inputs(features, labels):
    x = torch.stack(features, dim=1).float()
    return x, labels


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
