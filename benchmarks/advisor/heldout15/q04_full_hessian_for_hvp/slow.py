"""Hutchinson estimate of the Hessian trace of a small network's loss, timed the toy way (same parameters and batch
for every probe, estimates summed). Planted: each Hessian-vector product builds the full Hessian with
torch.autograd.functional.hessian and multiplies it by the probe; a double-backward product costs ~2 gradients.
Modelled on a StackOverflow question ("how to compute Hessian-vector products efficiently in PyTorch")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, D_IN, H = 256, 16, 24
X = torch.randn(N, D_IN)
y = torch.randn(N, 1)
shapes = [(H, D_IN), (H,), (1, H), (1,)]
sizes = [torch.Size(s).numel() for s in shapes]
w0 = torch.cat([0.3 * torch.randn(n) for n in sizes])


def loss_fn(w):
    W1, b1, W2, b2 = (t.view(s) for t, s in zip(torch.split(w, sizes), shapes))
    pred = torch.tanh(X @ W1.T + b1) @ W2.T + b2
    return ((pred - y) ** 2).mean()


def hvp(w, v):
    H_full = torch.autograd.functional.hessian(loss_fn, w)
    return H_full @ v


def main():
    g = torch.Generator().manual_seed(1)
    estimate = torch.zeros(())
    for k in range(6):
        v = torch.randint(0, 2, w0.shape, generator=g).float() * 2 - 1
        estimate += v @ hvp(w0, v)
    return estimate / 6


if __name__ == "__main__":
    result = main()
