import math

import numpy as np

LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
LOG_2_OVER_PI = math.log(2 / math.pi)

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
    lp = norm_logpdf_sum(mu, 0.0, 10.0)
    lp += halfcauchy_logpdf(tau, 2.5) + log_tau
    lp += halfcauchy_logpdf(sigma, 2.5) + log_sigma
    lp += norm_logpdf_sum(theta, mu, tau)
    lp += norm_logpdf_sum(y, theta[groups], sigma)
    return lp


def norm_logpdf_sum(x, loc, scale):
    z = (np.asarray(x) - loc) / scale
    return -0.5 * float(np.dot(np.ravel(z), np.ravel(z))) - np.size(z) * (math.log(scale) + LOG_SQRT_2PI)


def halfcauchy_logpdf(x, scale):
    z = x / scale
    return LOG_2_OVER_PI - math.log1p(z * z) - math.log(scale)


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
