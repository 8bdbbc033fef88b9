"""A derived column computed with DataFrame.iterrows (StackOverflow: "iterrows is slow, vectorise")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
df = pd.DataFrame({"price": rng.random(8000) * 100, "qty": rng.integers(1, 10, 8000)})


def main():
    totals = []
    for _, row in df.iterrows():
        t = row["price"] * row["qty"]
        totals.append(t * 0.9 if t > 100 else t)
    return np.array(totals)


if __name__ == "__main__":
    result = main()
