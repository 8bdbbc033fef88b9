"""A feature column computed with DataFrame.apply(..., axis=1) (StackOverflow: "pandas apply is slow,
how to vectorise"; "apply vs np.vectorize"): a conditional discount evaluated by building a Series for
every one of 40,000 rows."""
PLANTED = ("host_bound", "launch_overhead", "hotspot")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
n = 40_000
df = pd.DataFrame({"price": rng.uniform(5, 500, n), "qty": rng.integers(1, 20, n),
                   "member": rng.random(n) < 0.3, "region": rng.integers(0, 4, n)})


def discounted(row):
    total = row["price"] * row["qty"]
    if row["member"] and total > 200:
        total *= 0.85
    elif total > 1000:
        total *= 0.95
    return total + (7.5 if row["region"] == 3 else 4.0)


def main():
    out = df.copy()
    out["amount"] = out.apply(discounted, axis=1)
    return out["amount"].to_numpy()


if __name__ == "__main__":
    result = main()
