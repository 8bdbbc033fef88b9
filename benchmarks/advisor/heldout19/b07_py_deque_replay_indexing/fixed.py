import numpy as np

rng = np.random.default_rng(0)
CAP, FILL, BATCH, STEPS, OBS = 200_000, 220_000, 64, 1200, 16
obs_table = rng.standard_normal((FILL + 1, OBS))
W = rng.standard_normal((OBS, 4)) * 0.1
actions_all = rng.integers(0, 4, FILL).tolist()
rewards_all = rng.standard_normal(FILL).tolist()
dones_all = (rng.random(FILL) < 0.01).tolist()


def main():
    buffer = []
    pos = 0
    for t in range(FILL):
        item = (t, actions_all[t], rewards_all[t], t + 1, dones_all[t])
        if len(buffer) < CAP:
            buffer.append(item)
        else:
            buffer[pos] = item
        pos = (pos + 1) % CAP
    start = pos if len(buffer) == CAP else 0
    total = np.zeros(BATCH)
    for _ in range(STEPS):
        idx = rng.integers(0, len(buffer), BATCH)
        batch = [buffer[i] for i in ((idx + start) % len(buffer)).tolist()]
        states, actions, rewards, next_states, dones = (np.array(col) for col in zip(*batch))
        dones = dones.astype(float)
        q = (obs_table[states] @ W)[np.arange(BATCH), actions]
        q_next = (obs_table[next_states] @ W).max(axis=1)
        total += rewards + 0.99 * (1.0 - dones) * q_next - q
    return total


if __name__ == "__main__":
    result = main()
