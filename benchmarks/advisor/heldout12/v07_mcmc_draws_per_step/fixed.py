import numpy as np

STEPS, STEP_SIZE = 90_000, 0.35

data_rng = np.random.default_rng(0)
X = np.column_stack([np.ones(40), data_rng.normal(size=40), data_rng.normal(size=40)])
y = (X @ np.array([0.5, -1.0, 2.0]) + data_rng.logistic(size=40) > 0).astype(float)


def log_posterior(theta):
    z = X @ theta
    return float(y @ z - np.logaddexp(0.0, z).sum() - 0.5 * theta @ theta / 4.0)


def main():
    prop_rng, accept_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(1).spawn(2))
    theta = np.zeros(3)
    lp = log_posterior(theta)
    chain = np.empty((STEPS, 3))
    accepted = 0
    steps = prop_rng.normal(0.0, STEP_SIZE, size=(STEPS, 3))
    log_u = np.log(accept_rng.uniform(size=STEPS)).tolist()
    for i in range(STEPS):
        proposal = theta + steps[i]
        lp_new = log_posterior(proposal)
        if log_u[i] < lp_new - lp:
            theta, lp = proposal, lp_new
            accepted += 1
        chain[i] = theta
    burned = chain[STEPS // 5:]
    return np.concatenate([burned.mean(0), burned.std(0), [accepted / STEPS]])


if __name__ == "__main__":
    result = main()
