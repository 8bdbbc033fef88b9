"""Daily detrending job for a fleet of sensors: each sensor's series gets a quadratic trend fitted by
least squares and removed, and the residuals are summarised (spread, lag-1 autocorrelation, count of
large excursions) for an anomaly report (modelled on a StackOverflow question about fitting a polynomial
to every row of a large array)."""
PLANTED = ("host_bound", "launch_overhead", "hotspot", "utilization")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N_SENSORS, N_POINTS, DEGREE = 6_000, 288, 2

t = np.linspace(0.0, 1.0, N_POINTS)
coef = rng.normal(size=(N_SENSORS, DEGREE + 1)) * np.array([3.0, 2.0, 10.0])
noise = rng.standard_t(df=4, size=(N_SENSORS, N_POINTS))
readings = coef[:, :1] * t ** 2 + coef[:, 1:2] * t + coef[:, 2:3] + noise


def detrend(y):
    trend = np.empty_like(y)
    for i in range(y.shape[0]):
        p = np.polyfit(t, y[i], DEGREE)
        trend[i] = np.polyval(p, t)
    return y - trend


def summarise(resid):
    spread = resid.std(axis=1)
    z = resid / spread[:, None]
    centred = resid - resid.mean(axis=1, keepdims=True)
    lag1 = np.sum(centred[:, 1:] * centred[:, :-1], axis=1) / np.sum(centred * centred, axis=1)
    excursions = np.sum(np.abs(z) > 4.0, axis=1)
    return np.stack([spread, lag1, excursions.astype(float)], axis=1)


def main():
    return summarise(detrend(readings))


if __name__ == "__main__":
    result = main()
