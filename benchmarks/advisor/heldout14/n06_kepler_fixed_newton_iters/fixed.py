import math

import torch

torch.manual_seed(0)
N_ORBITS, N_EPOCHS = 60_000, 20
ecc = torch.distributions.Beta(torch.tensor(1.2), torch.tensor(6.0)).sample((N_ORBITS,)).double().clamp(max=0.97)
a = (1.0 + 4.0 * torch.rand(N_ORBITS, dtype=torch.float64))  # semi-major axis, AU
M0 = 2 * math.pi * torch.rand(N_ORBITS, dtype=torch.float64)
omega = 2 * math.pi * torch.rand(N_ORBITS, dtype=torch.float64)
n_motion = 2 * math.pi / a.pow(1.5)  # mean motion, rad / year


def solve_kepler(M: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
    E = torch.where(e < 0.8, M, torch.full_like(M, math.pi))
    for _ in range(30):
        delta = (E - e * torch.sin(E) - M) / (1.0 - e * torch.cos(E))
        E = E - delta
        if float(delta.abs().max()) < 1e-13:  # stop once every orbit has converged
            break
    return E


def positions(t: float):
    M = torch.remainder(M0 + n_motion * t, 2 * math.pi)
    E = solve_kepler(M, ecc)
    x = a * (torch.cos(E) - ecc)
    y = a * torch.sqrt(1.0 - ecc * ecc) * torch.sin(E)
    c, s = torch.cos(omega), torch.sin(omega)
    return c * x - s * y, s * x + c * y


def main():
    rows = []
    for t in torch.linspace(0.0, 10.0, N_EPOCHS).tolist():
        X, Y = positions(t)
        r = torch.sqrt(X * X + Y * Y)
        rows.append(torch.stack([X.mean(), Y.mean(), r.mean(), r.min(), (r < 1.3).double().mean(), X[:5].sum()]))
    return torch.stack(rows)


if __name__ == "__main__":
    result = main()
