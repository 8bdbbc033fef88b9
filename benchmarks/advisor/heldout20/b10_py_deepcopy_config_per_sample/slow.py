"""Feature-extraction pipeline whose per-sample transform deep-copies the whole nested preprocessing config
("so nothing can mutate it") before reading three numbers from it, for every one of 7k samples.
Modelled on code-review / GitHub issues like "copy.deepcopy(cfg) in __getitem__ dominates data loading"."""
PLANTED = ("redundant", "host_bound", "input_pipeline")
TOL = 1e-9
import copy

import numpy as np

rng = np.random.default_rng(0)
CONFIG = {
    "normalise": {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]},
    "clip": {"low": -2.5, "high": 2.5},
    "augment": {f"op{i}": {"p": 0.1 * (i % 10), "magnitude": [i, i + 1, i + 2], "name": f"op{i}"}
                for i in range(12)},
    "meta": {"version": "1.4", "tags": ["rgb", "train", "v2"], "classes": list(range(40))},
}
samples = rng.normal(0.45, 0.25, (7_000, 3))


def transform(x):
    cfg = copy.deepcopy(CONFIG)
    z = (x - np.array(cfg["normalise"]["mean"])) / np.array(cfg["normalise"]["std"])
    return np.clip(z, cfg["clip"]["low"], cfg["clip"]["high"])


def main():
    feats = np.stack([transform(s) for s in samples])
    return np.concatenate([feats.mean(0), feats.std(0)])


if __name__ == "__main__":
    result = main()
