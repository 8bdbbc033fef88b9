import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
N, H, W, EPOCHS = 640, 64, 64, 8
MEAN = torch.tensor([0.5, 0.5, 0.5]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.25, 0.25]).view(3, 1, 1)


def make_store():
    yy, xx = np.mgrid[0:H, 0:W]
    bases = [127 + 100 * np.sin(0.05 * (k + 1) * xx + 0.03 * (4 - k) * yy) for k in range(4)]
    bases = [np.stack([b, b[::-1], b[:, ::-1]]).astype(np.uint8) for b in bases]
    blobs, labels = [], []
    for i in range(N):
        label = i % 4
        img = bases[label] + rng.integers(0, 16, size=(3, H, W), dtype=np.uint8)
        blobs.append(zlib.compress(img.tobytes(), 1))
        labels.append(label)
    return blobs, labels


class CompressedImages(Dataset):
    """Decodes the whole shard once; __getitem__ only indexes the cached tensor."""

    def __init__(self, blobs, labels):
        raw = np.stack([np.frombuffer(zlib.decompress(b), dtype=np.uint8).reshape(3, H, W) for b in blobs])
        self.images = (torch.from_numpy(raw.astype(np.float32) / np.float32(255.0)) - MEAN) / STD
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def train():
    blobs, labels = make_store()
    loader = DataLoader(CompressedImages(blobs, labels), batch_size=64, shuffle=True,
                        generator=torch.Generator().manual_seed(1))
    model = nn.Sequential(nn.Conv2d(3, 8, 5, stride=4, padding=2), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2, padding=1),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(EPOCHS):
        for images, targets in loader:
            loss = F.cross_entropy(model(images), targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = train()
