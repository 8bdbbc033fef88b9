import torch
import torch.nn.functional as F

torch.manual_seed(0)
N_SCALES = 4
yy, xx = torch.meshgrid(torch.arange(160.0), torch.arange(160.0), indexing="ij")
sources = torch.zeros(8, 1, 160, 160)
for k in range(8):
    for _ in range(12):
        cy, cx, s = torch.rand(3) * torch.tensor([160.0, 160.0, 4.0])
        sources[k, 0] += torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (1.0 + s) ** 2))
images = sources + 0.05 * torch.randn_like(sources)

b3 = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0
B3_2D = torch.outer(b3, b3).view(1, 1, 5, 5)


def starlet(x: torch.Tensor):
    planes = []
    c = x
    for j in range(N_SCALES):
        step = 2 ** j
        smooth = F.conv2d(c, B3_2D, padding=2 * step, dilation=step)  # the 25 taps, spread by the dilation
        planes.append(c - smooth)
        c = smooth
    return planes, c


def denoise(x: torch.Tensor, k_sigma=3.0) -> torch.Tensor:
    planes, coarse = starlet(x)
    out = coarse.clone()
    for w in planes:
        sigma = w.flatten(1).abs().median(dim=1).values / 0.6745
        out += torch.where(w.abs() > k_sigma * sigma.view(-1, 1, 1, 1), w, torch.zeros_like(w))
    return out


def main():
    clean = denoise(images)
    return torch.stack([clean.mean(dim=(1, 2, 3)), clean.std(dim=(1, 2, 3)), clean[:, 0, 80, 80]])


if __name__ == "__main__":
    result = main()
