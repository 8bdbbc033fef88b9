"""One training epoch of a small CNN on uint8 images whose Dataset `__getitem__` converts, pads and crops, flips,
brightness-jitters, clamps and normalises each 3x16x16 image on its own, a dozen tiny tensor ops per sample
before the DataLoader collates them (forums: "the DataLoader is the bottleneck, augment on the batch")."""
PLANTED = ("input_pipeline", "launch_overhead", "host_bound")
TOL = 1e-4
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
N = 8192
IMAGES = torch.randint(0, 256, (N, 3, 16, 16), dtype=torch.uint8)
LABELS = torch.randint(0, 10, (N,))
FLIP = torch.rand(N) < 0.5
GAIN = 0.8 + 0.4 * torch.rand(N)
SHIFT = torch.randint(0, 5, (N, 2))
MEAN = torch.tensor([0.49, 0.48, 0.45]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.24, 0.26]).view(3, 1, 1)


class AugmentedImages(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        img = IMAGES[i].float() / 255.0
        dy, dx = SHIFT[i].tolist()
        img = F.pad(img, (2, 2, 2, 2))[:, dy:dy + 16, dx:dx + 16]
        if FLIP[i]:
            img = img.flip(-1)
        img = (img * GAIN[i]).clamp(0.0, 1.0)
        img = (img - MEAN) / STD
        return img, LABELS[i]


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 8 * 8, 10),
    )


def main():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = DataLoader(AugmentedImages(), batch_size=128, shuffle=True, generator=torch.Generator().manual_seed(1))
    losses = []
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
