"""Test-set log-likelihood of a Glow-style flow with LU-parametrised invertible 1x1 convolutions; every forward
rebuilds W (a row permutation of L @ U) and takes `torch.slogdet(W)`, although log|det W| is the sum of the
log|diag U| parameters the layer already stores (GitHub issue style: "flow evaluation dominated by slogdet")."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-3
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
C, HW, STEPS = 512, 4, 6


class InvConv1x1LU(nn.Module):
    def __init__(self, c):
        super().__init__()
        w = torch.linalg.qr(torch.randn(c, c))[0]
        P, L, U = torch.linalg.lu(w)
        s = torch.diagonal(U)
        self.register_buffer("perm", P.argmax(dim=1))
        self.register_buffer("sign_s", torch.sign(s))
        self.register_buffer("l_mask", torch.tril(torch.ones(c, c), -1))
        self.register_buffer("eye", torch.eye(c))
        self.L = nn.Parameter(L)
        self.U = nn.Parameter(torch.triu(U, 1))
        self.log_s = nn.Parameter(torch.log(torch.abs(s)) + 0.01 * torch.randn(c))

    def weight(self):
        L = self.L * self.l_mask + self.eye
        U = self.U * self.l_mask.T + torch.diag(self.sign_s * torch.exp(self.log_s))
        return (L @ U)[self.perm]

    def forward(self, x):
        W = self.weight()
        logdet = torch.slogdet(W)[1] * x.shape[2] * x.shape[3]
        return F.conv2d(x, W[:, :, None, None]), logdet


class Coupling(nn.Module):
    def __init__(self, c, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(c // 2, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, c, 3, padding=1))

    def forward(self, x):
        xa, xb = x.chunk(2, dim=1)
        log_scale, shift = self.net(xa).chunk(2, dim=1)
        log_scale = torch.tanh(log_scale)
        return torch.cat([xa, xb * torch.exp(log_scale) + shift], dim=1), log_scale.sum(dim=(1, 2, 3))


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(InvConv1x1LU(C) for _ in range(STEPS))
        self.couplings = nn.ModuleList(Coupling(C) for _ in range(STEPS))

    def forward(self, x):
        total = torch.zeros(x.shape[0])
        for conv, coupling in zip(self.convs, self.couplings):
            x, ld = conv(x)
            total = total + ld
            x, ld = coupling(x)
            total = total + ld
        prior = -0.5 * (x ** 2 + torch.log(torch.tensor(2 * torch.pi))).sum(dim=(1, 2, 3))
        return prior + total


def main():
    flow = Flow().eval()
    gen = torch.Generator().manual_seed(1)
    out = []
    with torch.no_grad():
        for _ in range(14):
            batch = torch.randn(4, C, HW, HW, generator=gen)
            out.append(flow(batch))
    return torch.cat(out)


if __name__ == "__main__":
    result = main()
