import math

import torch
import torch.nn.functional as F

SIZE, STEPS = 512, 50
DU, DV, FEED, KILL, DT = 0.16, 0.08, 0.035, 0.065, 1.0


def initial_state():
    ax = torch.linspace(-1.0, 1.0, SIZE)
    yy, xx = torch.meshgrid(ax, ax, indexing="ij")
    blob = torch.exp(-((xx - 0.1) ** 2 + (yy + 0.2) ** 2) / 0.02)
    ripple = 0.05 * torch.sin(7 * math.pi * xx) * torch.cos(5 * math.pi * yy)
    u = 1.0 - 0.5 * blob + 0.01 * ripple
    v = 0.25 * blob + 0.01 * ripple.abs()
    return u[None, None], v[None, None]


def main():
    lap = torch.tensor([[0.05, 0.2, 0.05], [0.2, -1.0, 0.2], [0.05, 0.2, 0.05]]).view(1, 1, 3, 3)
    u, v = initial_state()
    mass = []
    for step in range(STEPS):
        lu = F.conv2d(F.pad(u, (1, 1, 1, 1), mode="circular"), lap)
        lv = F.conv2d(F.pad(v, (1, 1, 1, 1), mode="circular"), lap)
        uvv = u * v * v
        u = u + DT * (DU * lu - uvv + FEED * (1 - u))
        v = v + DT * (DV * lv + uvv - (FEED + KILL) * v)
        if step % 10 == 0:
            mass.append(v.sum())
    return torch.cat([torch.stack(mass), v[0, 0, ::32, ::32].flatten()]).double()


if __name__ == "__main__":
    result = main()
