import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
n = 40_000
df = pd.DataFrame({"price": rng.uniform(5, 500, n), "qty": rng.integers(1, 20, n),
                   "member": rng.random(n) < 0.3, "region": rng.integers(0, 4, n)})


def main():
    out = df.copy()
    total = out["price"] * out["qty"]
    factor = np.select([out["member"] & (total > 200), total > 1000], [0.85, 0.95], default=1.0)
    out["amount"] = total * factor + np.where(out["region"] == 3, 7.5, 4.0)
    return out["amount"].to_numpy()


if __name__ == "__main__":
    result = main()
