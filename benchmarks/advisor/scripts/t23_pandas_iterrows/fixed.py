import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
df = pd.DataFrame({"price": rng.random(8000) * 100, "qty": rng.integers(1, 10, 8000)})


def main():
    t = (df["price"] * df["qty"]).to_numpy()
    return np.where(t > 100, t * 0.9, t)


if __name__ == "__main__":
    result = main()
