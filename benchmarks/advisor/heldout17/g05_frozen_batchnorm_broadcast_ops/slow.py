"""Inference of a PointNet-style point-cloud classifier whose batch norms were replaced by a hand-written frozen
BN, `(x - mean) / sqrt(var + eps) * weight + bias` with broadcast buffers, so each normalisation makes four full
passes over the (points, channels) activations (forum: "my FrozenBatchNorm is slower than BatchNorm1d")."""
PLANTED = ("fusion", "memory")
TOL = 1e-4
import torch
import torch.nn as nn

torch.manual_seed(0)


class FrozenBatchNorm1d(nn.Module):
    def __init__(self, c, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", 1.0 + 0.1 * torch.randn(c))
        self.register_buffer("bias", 0.1 * torch.randn(c))
        self.register_buffer("running_mean", 0.1 * torch.randn(c))
        self.register_buffer("running_var", 1.0 + 0.1 * torch.rand(c))

    def forward(self, x):
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps) * self.weight + self.bias


def shared_mlp(widths):
    layers = []
    for c_in, c_out in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(c_in, c_out, bias=False), FrozenBatchNorm1d(c_out), nn.ReLU()]
    return nn.Sequential(*layers)


class PointNet(nn.Module):
    def __init__(self, n_classes=16):
        super().__init__()
        self.features = shared_mlp([3, 128, 128, 128, 128])
        self.head = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, n_classes))

    def forward(self, pts):
        b, n, _ = pts.shape
        feats = self.features(pts.reshape(b * n, 3)).view(b, n, -1)
        return self.head(feats.amax(dim=1))


def main():
    net = PointNet().eval()
    clouds = torch.randn(16, 4096, 3)
    outs = []
    with torch.no_grad():
        for _ in range(2):
            outs.append(net(clouds))
    return torch.stack(outs)


if __name__ == "__main__":
    result = main()
