"""A lazily-loaded Dataset over features stored in one ``.npy`` file: ``__getitem__`` calls
``np.load(path, mmap_mode="r")`` for every sample, so each sample opens the file, parses its header and
maps it again (GitHub issues / PyTorch forums on lazy HDF5 and memmap datasets: "open the file once per
worker, not per item"). The fix: open the memmap once (in ``__init__``, or lazily on first use) and
only index it in ``__getitem__``."""
PLANTED = ("input_pipeline",)
TOL = 1e-4
import os
import shutil
import tempfile

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

N_SAMPLES, N_FEAT, N_CLASSES = 16_000, 96, 5

rng = np.random.default_rng(0)
tmpdir = tempfile.mkdtemp(prefix="features_")
FEATURES = os.path.join(tmpdir, "features.npy")
np.save(FEATURES, rng.standard_normal((N_SAMPLES, N_FEAT)).astype(np.float32))
LABELS = rng.integers(0, N_CLASSES, N_SAMPLES)


class FeatureFile(Dataset):
    def __init__(self, path, labels):
        self.path = path
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        feats = np.load(self.path, mmap_mode="r")
        x = torch.from_numpy(np.array(feats[i]))
        return x, int(self.labels[i])


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(N_FEAT, 256), nn.ReLU(), nn.Linear(256, N_CLASSES))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def train(epochs=2):
    loader = DataLoader(FeatureFile(FEATURES, LABELS), batch_size=64, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    losses = []
    for _ in range(epochs):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return torch.tensor(losses)


if __name__ == "__main__":
    try:
        result = train()
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
