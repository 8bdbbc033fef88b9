import numpy as np

N_STATES = 12
N_SEQS = 320
SEQ_LEN = 600
N_FIT_ROUNDS = 3


def make_model(rng):
    A = rng.random((N_STATES, N_STATES)) + 4.0 * np.eye(N_STATES)
    A /= A.sum(1, keepdims=True)
    pi = np.full(N_STATES, 1.0 / N_STATES)
    means = np.linspace(-3.0, 3.0, N_STATES)
    return A, pi, means, 0.6


def sample_sequences(rng, A, pi, means, sd):
    states = np.empty((N_SEQS, SEQ_LEN), dtype=np.int64)
    states[:, 0] = rng.choice(N_STATES, size=N_SEQS, p=pi)
    cum = A.cumsum(1)
    for t in range(1, SEQ_LEN):
        u = rng.random(N_SEQS)[:, None]
        states[:, t] = (u > cum[states[:, t - 1]]).sum(1).clip(max=N_STATES - 1)
    return means[states] + sd * rng.standard_normal(states.shape)


def emission_probs(x, means, sd):
    z = (x[:, :, None] - means[None, None, :]) / sd
    return np.exp(-0.5 * z * z) / (sd * np.sqrt(2 * np.pi))


def forward_loglik(B, A, pi):
    """B: (seqs, time, states) emission densities. Returns the log-likelihood of each sequence."""
    alpha = pi * B[:, 0]
    c = alpha.sum(1, keepdims=True)
    alpha /= c
    loglik = np.log(c[:, 0])
    for t in range(1, B.shape[1]):
        alpha = (alpha @ A) * B[:, t]
        c = alpha.sum(1, keepdims=True)
        alpha /= c
        loglik += np.log(c[:, 0])
    return loglik


def viterbi(logB, logA, logpi):
    """Most likely state path of each sequence, in log space."""
    n, T, K = logB.shape
    delta = logpi + logB[:, 0]
    back = np.empty((n, T, K), dtype=np.int64)
    for t in range(1, T):
        cand = delta[:, :, None] + logA[None]
        back[:, t] = cand.argmax(1)
        delta = cand.max(1) + logB[:, t]
    path = np.empty((n, T), dtype=np.int64)
    path[:, -1] = delta.argmax(1)
    rows = np.arange(n)
    for t in range(T - 1, 0, -1):
        path[:, t - 1] = back[rows, t, path[:, t]]
    return path


def main():
    rng = np.random.default_rng(0)
    A, pi, means, sd = make_model(rng)
    x = sample_sequences(rng, A, pi, means, sd)
    widths = sd * (0.9 + 0.2 * np.arange(N_FIT_ROUNDS))
    scores = []
    for w in widths:
        # a crude grid over the emission width, as in the original model-selection loop
        B = emission_probs(x, means, w)
        scores.append(forward_loglik(B, A, pi))
    scores = np.stack(scores)
    best = widths[scores.sum(1).argmax()]
    path = viterbi(np.log(emission_probs(x, means, best)), np.log(A), np.log(pi))
    occupancy = np.bincount(path.ravel(), minlength=N_STATES) / path.size
    return np.concatenate([scores.ravel(), occupancy])


if __name__ == "__main__":
    result = main()
