"""State probabilities of a continuous-time Markov model (a birth-death queue with abandonment) on a time grid,
computed as ``p0 @ scipy.linalg.expm(Q * t)`` for every grid point: a dense matrix exponential per time
point, only to multiply one row vector by it (StackOverflow and scientific-Python code review: use
``scipy.sparse.linalg.expm_multiply`` with ``start``/``stop``/``num`` for the action on a vector over an
evenly spaced grid)."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-7
import numpy as np
from scipy.linalg import expm

N_STATES, N_TIMES, T_END = 190, 60, 8.0
LAM, MU, SERVERS, ABANDON = 9.0, 1.0, 10, 0.3


def generator():
    Q = np.zeros((N_STATES, N_STATES))
    for n in range(N_STATES):
        if n + 1 < N_STATES:
            Q[n, n + 1] = LAM
        if n > 0:
            Q[n, n - 1] = MU * min(n, SERVERS) + ABANDON * max(n - SERVERS, 0)
        Q[n, n] = -Q[n].sum()
    return Q


def transient(Q, p0, times):
    return np.array([p0 @ expm(Q * t) for t in times])


def main():
    Q = generator()
    p0 = np.zeros(N_STATES)
    p0[0] = 1.0
    times = np.linspace(0.0, T_END, N_TIMES)
    probs = transient(Q, p0, times)
    states = np.arange(N_STATES)
    queue = probs @ np.maximum(states - SERVERS, 0)
    waiting_prob = probs[:, SERVERS:].sum(1)
    return np.concatenate([queue, waiting_prob, probs[-1]])


if __name__ == "__main__":
    result = main()
