"""Sensor readings are rounded to 4 decimals by formatting every float to a string and parsing it back
(`float(f"{v:.4f}")` over a Python list) before binning, instead of one vectorised np.round.
Modelled on code-review / StackOverflow threads like "fastest way to round a large list of floats"."""
PLANTED = ("host_bound", "redundant")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
readings = rng.normal(20.0, 3.0, 600_000)


def round4(values):
    return np.array([float(f"{v:.4f}") for v in values.tolist()])


def main():
    r = round4(readings)
    hist, _ = np.histogram(r, bins=50, range=(5.0, 35.0))
    return np.concatenate([hist / hist.sum(), [r.mean(), r.std()]])


if __name__ == "__main__":
    result = main()
