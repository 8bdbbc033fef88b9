"""Replays a recorded sensor signal through a "real-time" chain that low-pass filters it one sample at a time
with scipy.signal.sosfilt and its carried state zi, then counts threshold crossings (StackOverflow: "sosfilt
in a loop is extremely slow"). Each call pays scipy's argument checks and array set-up for a single sample;
one sosfilt call on the whole block with the same initial zi gives the same output."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-9
import numpy as np
from scipy import signal

rng = np.random.default_rng(0)
FS, SECONDS = 1_000, 20
t = np.arange(FS * SECONDS) / FS
recording = np.sin(2 * np.pi * 1.5 * t) + 0.4 * rng.standard_normal(t.shape[0])


def stream_filter(x):
    sos = signal.butter(4, 8.0, fs=FS, output="sos")
    zi = signal.sosfilt_zi(sos) * x[0]
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        y, zi = signal.sosfilt(sos, x[i:i + 1], zi=zi)
        out[i] = y[0]
    return out


def crossings(y, level=0.5):
    above = y > level
    return np.flatnonzero(above[1:] & ~above[:-1])


def run():
    y = stream_filter(recording)
    events = crossings(y)
    return np.concatenate([y[::25], [events.shape[0]], events[:20]])


if __name__ == "__main__":
    result = run()
