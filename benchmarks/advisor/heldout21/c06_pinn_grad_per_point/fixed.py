import torch
import torch.nn as nn

torch.manual_seed(0)
N_POINTS, NU = 900, 0.01
net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
points = torch.rand(N_POINTS, 2) * torch.tensor([2.0, 1.0]) - torch.tensor([1.0, 0.0])


def residual(xt):
    xt = xt.clone().requires_grad_(True)
    u = net(xt).squeeze(1)
    du = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]
    d2 = torch.autograd.grad(du[:, 0].sum(), xt)[0][:, 0]
    return du[:, 1].detach() + u.detach() * du[:, 0].detach() - NU * d2


def main():
    return residual(points).detach()


if __name__ == "__main__":
    result = main()
