"""Feature engineering z-scores each sensor reading within its device with `groupby(...).transform(lambda s: ...)`,
calling a Python function (and building two Series) once for each of 1,800 devices instead of using the
built-in group aggregations (StackOverflow: "groupby transform with lambda is very slow")."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N, N_DEV = 400_000, 1_800
df = pd.DataFrame({
    "device": rng.integers(0, N_DEV, N),
    "temp": rng.normal(40.0, 8.0, N),
    "load": rng.gamma(2.0, 10.0, N),
})


def main():
    g = df.groupby("device")
    out = pd.DataFrame(index=df.index)
    for col in ["temp", "load"]:
        out[col + "_z"] = g[col].transform(lambda s: (s - s.mean()) / s.std())
    out["load_share"] = g["load"].transform(lambda s: s / s.sum())
    return out.to_numpy()


if __name__ == "__main__":
    result = main()
