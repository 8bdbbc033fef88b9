"""Trains a small point-cloud GNN whose EdgeConv layers use a kNN graph of the fixed xyz coordinates.
Planted: every layer of every step recomputes cdist + topk on coordinates that never change.
Modelled on forum threads "DGCNN training slow, knn takes most of the forward" (static graph)."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch
import torch.nn as nn

torch.manual_seed(0)
N_CLOUDS, N_POINTS, K, C = 20, 320, 16, 12
clouds = torch.randn(N_CLOUDS, N_POINTS, 3)
labels = torch.randint(0, 4, (N_CLOUDS,))


def knn(xyz, k):
    d = torch.cdist(xyz, xyz)
    return d.topk(k, dim=1, largest=False).indices


class EdgeConv(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.lin = nn.Linear(2 * c_in, c_out)

    def forward(self, h, xyz):
        idx = knn(xyz, K)
        nb = h[idx]
        centre = h.unsqueeze(1).expand(-1, K, -1)
        e = torch.cat([centre, nb - centre], dim=-1)
        return torch.relu(self.lin(e)).amax(dim=1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(3, C)
        self.convs = nn.ModuleList([EdgeConv(C, C) for _ in range(4)])
        self.head = nn.Linear(C, 4)

    def forward(self, xyz):
        h = self.inp(xyz)
        for conv in self.convs:
            h = conv(h, xyz)
        return self.head(h.mean(dim=0))


def main():
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for epoch in range(3):
        for i in range(N_CLOUDS):
            loss = nn.functional.cross_entropy(net(clouds[i]).unsqueeze(0), labels[i:i + 1])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        return torch.stack([net(clouds[i]) for i in range(N_CLOUDS)])


if __name__ == "__main__":
    result = main()
