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
        out[col + "_z"] = (df[col] - g[col].transform("mean")) / g[col].transform("std")
    out["load_share"] = df["load"] / g["load"].transform("sum")
    return out.to_numpy()


if __name__ == "__main__":
    result = main()
