import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)
N = 8192
IMAGES = torch.randint(0, 256, (N, 3, 16, 16), dtype=torch.uint8)
LABELS = torch.randint(0, 10, (N,))
FLIP = torch.rand(N) < 0.5
GAIN = 0.8 + 0.4 * torch.rand(N)
SHIFT = torch.randint(0, 5, (N, 2))
MEAN = torch.tensor([0.49, 0.48, 0.45]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.24, 0.26]).view(3, 1, 1)


def augment_batch(idx):
    img = F.pad(IMAGES[idx].float() / 255.0, (2, 2, 2, 2))
    rows = (SHIFT[idx, 0, None] + torch.arange(16)).view(-1, 1, 16, 1)
    cols = (SHIFT[idx, 1, None] + torch.arange(16)).view(-1, 1, 1, 16)
    img = img[torch.arange(len(idx)).view(-1, 1, 1, 1), torch.arange(3).view(1, 3, 1, 1), rows, cols]
    img = torch.where(FLIP[idx].view(-1, 1, 1, 1), img.flip(-1), img)
    img = (img * GAIN[idx].view(-1, 1, 1, 1)).clamp(0.0, 1.0)
    return (img - MEAN) / STD, LABELS[idx]


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 8 * 8, 10),
    )


def main():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = DataLoader(range(N), batch_size=128, shuffle=True, generator=torch.Generator().manual_seed(1))
    losses = []
    for idx in batches:
        x, y = augment_batch(idx)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
