import math

import torch
from torch import nn
from torch.distributions import Independent, Normal, TanhTransform, TransformedDistribution

torch.manual_seed(0)

OBS = 4
ACT = 2
HORIZON = 100
EPISODES_PER_UPDATE = 4
UPDATES = 8
PPO_EPOCHS = 4
CLIP = 0.2
GAMMA = 0.98


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh())
        self.mu = nn.Linear(32, ACT)
        self.log_std = nn.Parameter(torch.full((ACT,), -0.5))

    def dist(self, obs):
        mu = self.mu(self.body(obs))
        base = Independent(Normal(mu, self.log_std.exp().expand_as(mu), validate_args=False), 1,
                           validate_args=False)
        return TransformedDistribution(base, [TanhTransform(cache_size=1)], validate_args=False)


class PointMass:
    """2-D point with velocity; reward is minus the distance to a fixed goal."""

    goal = (0.7, -0.4)

    def __init__(self, gen):
        self.gen = gen

    def reset(self):
        self.x, self.y = (torch.rand(2, generator=self.gen) * 2 - 1).tolist()
        self.vx = self.vy = 0.0
        return torch.tensor([self.x, self.y, self.vx, self.vy])

    def step(self, action):
        ax, ay = action.tolist()
        self.vx = 0.9 * self.vx + 0.1 * ax
        self.vy = 0.9 * self.vy + 0.1 * ay
        self.x += 0.1 * self.vx
        self.y += 0.1 * self.vy
        reward = -math.hypot(self.x - self.goal[0], self.y - self.goal[1])
        return torch.tensor([self.x, self.y, self.vx, self.vy]), reward


@torch.no_grad()
def rollout(policy, env):
    obs = env.reset()
    observations, actions, old_logp, rewards = [], [], [], []
    for t in range(HORIZON):
        d = policy.dist(obs)
        action = d.sample()
        observations.append(obs)
        actions.append(action)
        old_logp.append(d.log_prob(action))
        obs, r = env.step(action)
        rewards.append(r)
    return observations, actions, old_logp, rewards


def discounted(rewards):
    out, g = [], 0.0
    for r in reversed(rewards):
        g = r + GAMMA * g
        out.append(g)
    return out[::-1]


def train():
    policy = Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(11)
    env = PointMass(gen)
    curve = []
    for update in range(UPDATES):
        obs, act, logp, ret = [], [], [], []
        total = 0.0
        for _ in range(EPISODES_PER_UPDATE):
            o, a, lp, rewards = rollout(policy, env)
            obs += o
            act += a
            logp += lp
            ret += discounted(rewards)
            total += sum(rewards)
        obs, act, logp = torch.stack(obs), torch.stack(act), torch.stack(logp)
        ret = torch.tensor(ret)
        adv = (ret - ret.mean()) / (ret.std() + 1e-6)
        for _ in range(PPO_EPOCHS):
            ratio = (policy.dist(obs).log_prob(act) - logp).exp()
            loss = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        curve.append(total / EPISODES_PER_UPDATE)
    return torch.cat([torch.tensor(curve), policy.mu.weight.detach().flatten()])


if __name__ == "__main__":
    result = train()
