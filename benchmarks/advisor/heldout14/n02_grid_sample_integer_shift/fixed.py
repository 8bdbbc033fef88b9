import torch
import torch.nn.functional as F

torch.manual_seed(0)
N_IMG, B, MAX_SHIFT = 512, 128, 4
images = torch.rand(N_IMG, 3, 96, 96)
labels = torch.randint(0, 10, (N_IMG,))
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, 8, stride=8), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(4), torch.nn.Flatten(), torch.nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
gen = torch.Generator().manual_seed(1)


def random_shift(x: torch.Tensor, shifts: torch.Tensor) -> torch.Tensor:
    # whole-pixel shifts: pad once, then copy each image's window
    n, _, h, w = x.shape
    p = MAX_SHIFT
    padded = F.pad(x, (p, p, p, p))
    out = torch.empty_like(x)
    for i, (dx, dy) in enumerate(shifts.tolist()):
        out[i] = padded[i, :, p - dy:p - dy + h, p - dx:p - dx + w]
    return out


def main():
    losses = []
    for epoch in range(2):
        for start in range(0, N_IMG, B):
            x, y = images[start:start + B], labels[start:start + B]
            shifts = torch.randint(-MAX_SHIFT, MAX_SHIFT + 1, (x.shape[0], 2), generator=gen)
            x = random_shift(x, shifts)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return torch.tensor(losses)


if __name__ == "__main__":
    result = main()
