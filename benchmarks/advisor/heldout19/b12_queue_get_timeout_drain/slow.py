"""Micro-batching consumer: each tick drains the pending feature records from a queue.Queue and scores them with numpy.
Planted: the drain loop calls q.get(timeout=0.003) until queue.Empty, so every tick ends by waiting out a full timeout.
Modelled on reports like "my consumer loop spends most of its time blocked in queue.get although the queue is filled"."""
PLANTED = ("idle", "sync")
TOL = 1e-9
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
            items.append(q.get(timeout=0.003))
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
