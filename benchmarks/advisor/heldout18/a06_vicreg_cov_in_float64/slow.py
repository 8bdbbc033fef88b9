"""Monitors a VICReg-style variance/covariance regulariser on projector embeddings, casting them to float64
"for numerical stability" before the centring and the D x D covariance matmul (code review: "why is the loss
slower than the encoder?"). float32 is accurate enough here. Toy benchmark: one fixed batch, losses summed."""
PLANTED = ("precision", "hotspot")
TOL = 1e-3
import torch
import torch.nn as nn

torch.manual_seed(0)
BATCH, IN_DIM, EMB_DIM, ITERS = 1024, 256, 1024, 10


def vicreg_terms(z):
    z = z.double()
    n, d = z.shape
    z = z - z.mean(dim=0)
    std = torch.sqrt(z.var(dim=0) + 1e-4)
    var_loss = torch.relu(1.0 - std).mean()
    cov = (z.T @ z) / (n - 1)
    off_diag = cov.pow(2).sum() - cov.diagonal().pow(2).sum()
    return torch.stack([var_loss, off_diag / d]).float()


def benchmark():
    projector = nn.Sequential(nn.Linear(IN_DIM, EMB_DIM), nn.ReLU(), nn.Linear(EMB_DIM, EMB_DIM)).eval()
    batch = torch.randn(BATCH, IN_DIM)
    total = torch.zeros(2)
    with torch.no_grad():
        for _ in range(ITERS):
            total += vicreg_terms(projector(batch))
    return total


if __name__ == "__main__":
    result = benchmark()
