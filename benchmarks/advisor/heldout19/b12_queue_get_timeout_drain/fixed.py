import queue

import numpy as np

rng = np.random.default_rng(0)
TICKS, PER_TICK, DIM = 120, 40, 64
records = rng.standard_normal((TICKS, PER_TICK, DIM))
catalogue = rng.standard_normal((3000, DIM)) / 8.0
values = rng.standard_normal(3000)


def drain(q):
    items = []
    while True:
        try:
            items.append(q.get_nowait())
        except queue.Empty:
            return items


def score(batch):
    sims = batch @ catalogue.T
    weights = np.exp(sims - sims.max(axis=1, keepdims=True))
    return (weights @ values) / weights.sum(axis=1)


def main():
    q = queue.Queue()
    scores = []
    for t in range(TICKS):
        for row in records[t]:
            q.put(row)
        batch = np.array(drain(q))
        scores.append(score(batch))
    return np.concatenate(scores)


if __name__ == "__main__":
    result = main()
