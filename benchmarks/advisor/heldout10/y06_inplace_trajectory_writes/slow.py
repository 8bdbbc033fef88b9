"""Fitting a learned dynamics model by unrolling it with explicit Euler steps, each state written into a
preallocated trajectory tensor (modelled on a PyTorch forums thread: "backward gets slower the longer my
rollout is, although the forward is linear in the number of steps").

Each ``traj[:, t] = state`` is an in-place write into a tensor autograd tracks; backward goes through one
copy-slices node per step, and each of them clones the gradient of the whole trajectory, so the backward
allocates and copies a trajectory-sized buffer per step: quadratic in the horizon.
"""
PLANTED = ("memory", "hotspot")
TOL = 1e-4

import torch
from torch import nn

torch.manual_seed(0)

STATE = 16
HIDDEN = 64
HORIZON = 400
BATCH = 64
DT = 0.05
ITERS = 5


class Dynamics(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(STATE, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, STATE))

    def forward(self, s):
        return self.net(s)


def true_trajectories(gen):
    """Damped coupled oscillators as the system to identify."""
    A = torch.randn(STATE, STATE, generator=gen) * 0.3
    A = A - A.T - 0.1 * torch.eye(STATE)
    s = torch.randn(BATCH, STATE, generator=gen)
    out = [s]
    for _ in range(HORIZON - 1):
        s = s + DT * (s @ A.T)
        out.append(s)
    return torch.stack(out, dim=1)


def unroll(model, s0):
    traj = torch.zeros(s0.shape[0], HORIZON, STATE)
    traj[:, 0] = s0
    s = s0
    for t in range(1, HORIZON):
        s = s + DT * model(s)
        traj[:, t] = s
    return traj


def fit():
    gen = torch.Generator().manual_seed(5)
    target = true_trajectories(gen)
    model = Dynamics()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    losses = []
    for it in range(ITERS):
        pred = unroll(model, target[:, 0])
        loss = (pred - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return torch.cat([torch.tensor(losses), model.net[2].weight.detach().flatten()])


if __name__ == "__main__":
    result = fit()
