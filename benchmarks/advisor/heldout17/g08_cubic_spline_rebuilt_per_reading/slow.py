"""Converting thermocouple voltages to temperatures through a calibration table: the helper builds a
`scipy.interpolate.CubicSpline` from the same fixed table on every call and evaluates it at one reading
(code review: "calibration step takes longer than the whole analysis")."""
PLANTED = ("redundant", "host_bound")
TOL = 1e-9
import numpy as np
from scipy.interpolate import CubicSpline

rng = np.random.default_rng(0)
TABLE_MV = np.linspace(-5.0, 50.0, 221)
TABLE_C = 24.4 * TABLE_MV - 0.05 * TABLE_MV ** 2 + 0.3 * np.sin(TABLE_MV / 3.0)
READINGS = rng.uniform(-4.0, 48.0, size=(6, 700))


def to_celsius(mv):
    spline = CubicSpline(TABLE_MV, TABLE_C)
    return float(spline(mv))


def main():
    temps = np.empty_like(READINGS)
    for ch in range(READINGS.shape[0]):
        for i in range(READINGS.shape[1]):
            temps[ch, i] = to_celsius(READINGS[ch, i])
    return np.concatenate([temps.mean(axis=1), temps.max(axis=1), temps[:, ::100].ravel()])


if __name__ == "__main__":
    result = main()
