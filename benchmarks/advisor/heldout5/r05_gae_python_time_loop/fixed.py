import torch
import torch.nn as nn

torch.manual_seed(0)

T, N_ENVS, OBS, N_ROLLOUTS = 256, 16, 8, 400
GAMMA, LAM = 0.99, 0.95

critic = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, 1))
obs = torch.randn(N_ROLLOUTS, T + 1, N_ENVS, OBS)
rewards = torch.randn(N_ROLLOUTS, T, N_ENVS) * 0.1 + 0.05


_k = torch.arange(T)
# DISCOUNT[s, t] = (GAMMA * LAM) ** (s - t) for s >= t, else 0: advantages = DISCOUNT.T @ deltas
DISCOUNT = torch.where(_k[:, None] >= _k[None, :],
                       (GAMMA * LAM) ** (_k[:, None] - _k[None, :]).clamp(min=0).double(),
                       torch.zeros(())).float()


def compute_gae(rew, values):
    """rew: (T, N_ENVS); values: (T + 1, N_ENVS), the last row bootstraps."""
    deltas = rew + GAMMA * values[1:] - values[:-1]
    return DISCOUNT.T @ deltas


def main():
    out = []
    with torch.no_grad():
        for r in range(N_ROLLOUTS):
            values = critic(obs[r]).squeeze(-1)
            adv = compute_gae(rewards[r], values)
            returns = adv + values[:-1]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            out.append(torch.stack([adv.mean(0), adv.std(0), returns.mean(0)]))
    return torch.stack(out)


if __name__ == "__main__":
    result = main()
