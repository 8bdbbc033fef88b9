"""Evaluates a physics-informed network's PDE residual u_t + u*u_x - nu*u_xx on collocation points.
Planted: du/dx is taken with one autograd.grad call per point (each backpropagating the whole batch),
where one call with grad of u.sum() gives all rows at once. Modelled on PINN questions "autograd.grad in a loop is slow"."""
PLANTED = ("launch_overhead", "host_bound", "redundant")
TOL = 1e-4
import torch
import torch.nn as nn

torch.manual_seed(0)
N_POINTS, NU = 900, 0.01
net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
points = torch.rand(N_POINTS, 2) * torch.tensor([2.0, 1.0]) - torch.tensor([1.0, 0.0])


def residual(xt):
    xt = xt.clone().requires_grad_(True)
    u = net(xt).squeeze(1)
    du = torch.zeros(N_POINTS, 2)
    d2 = torch.zeros(N_POINTS)
    for i in range(N_POINTS):
        g = torch.autograd.grad(u[i], xt, create_graph=True)[0]
        du[i] = g[i].detach()
        d2[i] = torch.autograd.grad(g[i, 0], xt, retain_graph=True)[0][i, 0]
    return du[:, 1] + u.detach() * du[:, 0] - NU * d2


def main():
    return residual(points).detach()


if __name__ == "__main__":
    result = main()
