"""Feature engineering on a 150k-row sensor frame: 24 helper functions each add one standardised/clipped feature.
Planted: every helper starts with `df = df.copy()` of the whole 16-column frame "to avoid SettingWithCopyWarning".
Modelled on code-review comments like "these defensive DataFrame copies dominate your pipeline's run time"."""
PLANTED = ("memory", "redundant")
TOL = 1e-8
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N, K = 150_000, 16
frame = pd.DataFrame(rng.standard_normal((N, K)), columns=[f"s{i}" for i in range(K)])
SPECS = [(f"s{i % K}", f"s{(i * 5 + 3) % K}", 1.0 + 0.25 * (i % 4)) for i in range(24)]


def add_feature(df, a, b, clip, name):
    df = df.copy()
    ratio = (df[a] - df[b]) / (df[a].abs() + df[b].abs() + 1.0)
    df[name] = ((ratio - ratio.mean()) / ratio.std()).clip(-clip, clip)
    return df


def main():
    df = frame
    for j, (a, b, clip) in enumerate(SPECS):
        df = add_feature(df, a, b, clip, f"f{j}")
    feats = df[[f"f{j}" for j in range(len(SPECS))]]
    return feats.abs().mean().to_numpy()


if __name__ == "__main__":
    result = main()
