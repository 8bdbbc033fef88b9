"""Starlet (isotropic undecimated wavelet) denoising of a batch of sky images, ported to torch from a numpy
implementation of the "a trous" algorithm: at scale j the B3-spline kernel is upsampled by inserting
2**j - 1 zeros between its taps and the resulting large, mostly-zero kernel is convolved in full, where
``conv2d(..., dilation=2**j)`` applies the same 25 taps directly; modelled on a GitHub issue on an astronomy
denoising package ("the wavelet transform gets much slower at the coarse scales")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
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
B3_2D = torch.outer(b3, b3)


def upsampled_kernel(j: int) -> torch.Tensor:
    step = 2 ** j
    size = 4 * step + 1
    k = torch.zeros(size, size)
    k[::step, ::step] = B3_2D
    return k.view(1, 1, size, size)


def starlet(x: torch.Tensor):
    planes = []
    c = x
    for j in range(N_SCALES):
        k = upsampled_kernel(j)
        smooth = F.conv2d(c, k, padding=k.shape[-1] // 2)
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
