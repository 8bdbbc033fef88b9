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
MEAN = np.array(CONFIG["normalise"]["mean"])
STD = np.array(CONFIG["normalise"]["std"])
LOW, HIGH = CONFIG["clip"]["low"], CONFIG["clip"]["high"]


def transform(x):
    z = (x - MEAN) / STD
    return np.clip(z, LOW, HIGH)


def main():
    feats = np.stack([transform(s) for s in samples])
    return np.concatenate([feats.mean(0), feats.std(0)])


if __name__ == "__main__":
    result = main()
