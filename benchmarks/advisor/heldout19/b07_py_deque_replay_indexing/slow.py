"""DQN-style replay: fill a 200k-transition buffer, then sample mini-batches by index and compute TD targets with numpy.
Planted: the buffer is a collections.deque(maxlen=...), whose random indexing walks blocks (O(n)), five lookups per sample.
Modelled on RL forum/StackOverflow reports like "sampling from my replay buffer (deque) is the bottleneck"."""
PLANTED = ("hotspot", "host_bound")
TOL = 1e-6
import collections

import numpy as np

rng = np.random.default_rng(0)
CAP, FILL, BATCH, STEPS, OBS = 200_000, 220_000, 64, 1200, 16
obs_table = rng.standard_normal((FILL + 1, OBS))
W = rng.standard_normal((OBS, 4)) * 0.1
actions_all = rng.integers(0, 4, FILL).tolist()
rewards_all = rng.standard_normal(FILL).tolist()
dones_all = (rng.random(FILL) < 0.01).tolist()


def main():
    buffer = collections.deque(maxlen=CAP)
    for t in range(FILL):
        buffer.append((t, actions_all[t], rewards_all[t], t + 1, dones_all[t]))
    total = np.zeros(BATCH)
    for _ in range(STEPS):
        idx = rng.integers(0, len(buffer), BATCH)
        states = np.array([buffer[i][0] for i in idx])
        actions = np.array([buffer[i][1] for i in idx])
        rewards = np.array([buffer[i][2] for i in idx])
        next_states = np.array([buffer[i][3] for i in idx])
        dones = np.array([buffer[i][4] for i in idx], dtype=float)
        q = (obs_table[states] @ W)[np.arange(BATCH), actions]
        q_next = (obs_table[next_states] @ W).max(axis=1)
        total += rewards + 0.99 * (1.0 - dones) * q_next - q
    return total


if __name__ == "__main__":
    result = main()
