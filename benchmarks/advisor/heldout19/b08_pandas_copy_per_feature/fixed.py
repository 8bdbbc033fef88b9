import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N, K = 150_000, 16
frame = pd.DataFrame(rng.standard_normal((N, K)), columns=[f"s{i}" for i in range(K)])
SPECS = [(f"s{i % K}", f"s{(i * 5 + 3) % K}", 1.0 + 0.25 * (i % 4)) for i in range(24)]


def make_feature(df, a, b, clip):
    ratio = (df[a] - df[b]) / (df[a].abs() + df[b].abs() + 1.0)
    return ((ratio - ratio.mean()) / ratio.std()).clip(-clip, clip)


def main():
    new = {f"f{j}": make_feature(frame, a, b, clip) for j, (a, b, clip) in enumerate(SPECS)}
    df = pd.concat([frame, pd.DataFrame(new)], axis=1)
    feats = df[[f"f{j}" for j in range(len(SPECS))]]
    return feats.abs().mean().to_numpy()


if __name__ == "__main__":
    result = main()
