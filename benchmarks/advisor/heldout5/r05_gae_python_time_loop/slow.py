"""PPO-style advantage estimation (GAE) written as the textbook backward recursion over time steps, one
small tensor operation after another for each step of every rollout (PyTorch forums / RL code reviews:
"my PPO update spends most of its time computing advantages"). The rollouts come from a continuing task
(no episode ends inside a rollout, the last value bootstraps), so the recursion is a fixed linear filter:
the fix builds the (T x T) matrix of discount powers once and computes all advantages of a rollout with
one matrix product."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
import torch
import torch.nn as nn

torch.manual_seed(0)

T, N_ENVS, OBS, N_ROLLOUTS = 256, 16, 8, 400
GAMMA, LAM = 0.99, 0.95

critic = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, 1))
obs = torch.randn(N_ROLLOUTS, T + 1, N_ENVS, OBS)
rewards = torch.randn(N_ROLLOUTS, T, N_ENVS) * 0.1 + 0.05


def compute_gae(rew, values):
    """rew: (T, N_ENVS); values: (T + 1, N_ENVS), the last row bootstraps."""
    advantages = torch.zeros_like(rew)
    last = torch.zeros(rew.shape[1])
    for t in reversed(range(rew.shape[0])):
        delta = rew[t] + GAMMA * values[t + 1] - values[t]
        last = delta + GAMMA * LAM * last
        advantages[t] = last
    return advantages


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
