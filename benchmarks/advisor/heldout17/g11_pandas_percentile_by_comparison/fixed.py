import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N = 9000
df = pd.DataFrame({
    "applicant": np.arange(N),
    "region": rng.choice(["north", "south", "east", "west"], size=N),
    "score": np.round(rng.normal(600.0, 80.0, size=N)),
})


def main():
    out = df.copy()
    out["pct_below"] = (out["score"].rank(method="min") - 1.0) / len(out)
    out["band"] = pd.cut(out["pct_below"], [-0.01, 0.25, 0.5, 0.75, 1.0], labels=False)
    summary = out.groupby("region")["pct_below"].mean()
    return np.concatenate([out["pct_below"].to_numpy(), out["band"].to_numpy(dtype=float), summary.to_numpy()])


if __name__ == "__main__":
    result = main()
