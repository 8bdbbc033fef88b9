"""A hand-written random-walk Metropolis sampler for a small hierarchical model, its log-density written with
``scipy.stats`` distributions (modelled on a StackOverflow question: "my MCMC in Python spends all its time
inside scipy.stats").

Each density evaluation makes several ``scipy.stats`` calls on a few hundred numbers; each call spends far
more time checking and broadcasting its arguments than computing, and the sampler is sequential, so this
overhead is paid on every step. The same log-densities written directly in numpy give the same chain.
"""
PLANTED = ("host_bound", "launch_overhead", "hotspot")
TOL = 1e-6

import numpy as np
from scipy import stats

N_GROUPS = 6
PER_GROUP = 40
N_STEPS = 2500
STEP = 0.08


def simulate(rng):
    true_mu, true_tau, true_sigma = 2.0, 0.8, 1.5
    theta = rng.normal(true_mu, true_tau, N_GROUPS)
    groups = np.repeat(np.arange(N_GROUPS), PER_GROUP)
    y = rng.normal(theta[groups], true_sigma)
    return y, groups


def log_post(params, y, groups):
    mu, log_tau, log_sigma = params[:3]
    theta = params[3:]
    tau, sigma = np.exp(log_tau), np.exp(log_sigma)
    lp = stats.norm.logpdf(mu, 0.0, 10.0)
    lp += stats.halfcauchy.logpdf(tau, scale=2.5) + log_tau
    lp += stats.halfcauchy.logpdf(sigma, scale=2.5) + log_sigma
    lp += stats.norm.logpdf(theta, mu, tau).sum()
    lp += stats.norm.logpdf(y, theta[groups], sigma).sum()
    return lp


def metropolis(y, groups, rng):
    x = np.concatenate([[0.0, 0.0, 0.0], np.zeros(N_GROUPS)])
    lp = log_post(x, y, groups)
    chain = np.empty((N_STEPS, x.size))
    accepted = 0
    for i in range(N_STEPS):
        prop = x + STEP * rng.standard_normal(x.size)
        lp_prop = log_post(prop, y, groups)
        if np.log(rng.random()) < lp_prop - lp:
            x, lp = prop, lp_prop
            accepted += 1
        chain[i] = x
    return chain, accepted / N_STEPS


def main():
    rng = np.random.default_rng(0)
    y, groups = simulate(rng)
    chain, acc = metropolis(y, groups, rng)
    kept = chain[N_STEPS // 2:]
    return np.concatenate([kept.mean(0), kept.std(0), [acc]])


if __name__ == "__main__":
    result = main()
