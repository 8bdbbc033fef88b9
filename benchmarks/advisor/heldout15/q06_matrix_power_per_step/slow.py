"""Expected reward of a Markov chain at every step of a horizon, with a Monte Carlo check by simulated walkers.
Planted: each step's distribution is p0 @ torch.linalg.matrix_power(P, t), several n-by-n matrix products per
step, where carrying the distribution forward (p_t = p_{t-1} @ P) is one vector-matrix product. Modelled on a
StackOverflow question ("distribution of a Markov chain at every step up to t, fast")."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-4
import torch

torch.manual_seed(0)
N_STATES, HORIZON, WALKERS = 320, 128, 4096
logits = torch.randn(N_STATES, N_STATES) * 2.0
P = torch.softmax(logits, dim=1)
p0 = torch.softmax(torch.randn(N_STATES), dim=0)
reward = torch.rand(N_STATES)


def simulate():
    # Monte Carlo check of the exact curve: walkers started from p0, mean reward per step
    g = torch.Generator().manual_seed(1)
    cdf = P.cumsum(dim=1)
    state = torch.multinomial(p0, WALKERS, replacement=True, generator=g)
    mc = []
    for t in range(1, HORIZON + 1):
        u = torch.rand(WALKERS, 1, generator=g)
        state = torch.searchsorted(cdf[state], u).squeeze(1).clamp_(max=N_STATES - 1)
        mc.append(reward[state].mean())
    return torch.stack(mc)


def main():
    expected = []
    for t in range(1, HORIZON + 1):
        p_t = p0 @ torch.linalg.matrix_power(P, t)
        expected.append(p_t @ reward)
    return torch.stack([torch.stack(expected), simulate()])


if __name__ == "__main__":
    result = main()
