import torch
from torch.distributions import Independent, Normal

torch.manual_seed(0)
n_batches, batch, d = 5, 2048, 48
W_mu = torch.randn(d, d) / d ** 0.5
W_lv = torch.randn(d, d) / d ** 0.5
data = torch.randn(n_batches, batch, d)
targets = torch.randn(n_batches, batch, d)


def main():
    nll = []
    with torch.no_grad():
        for b in range(n_batches):
            h = data[b]
            mu = h @ W_mu
            var = torch.nn.functional.softplus(h @ W_lv) + 1e-3
            dist = Independent(Normal(mu, var.sqrt()), 1)      # same density, no dense covariance
            nll.append(-dist.log_prob(targets[b]))
    return torch.stack(nll)


if __name__ == "__main__":
    result = main()
