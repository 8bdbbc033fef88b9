"""A diagonal-Gaussian likelihood built as MultivariateNormal(mu, covariance_matrix=torch.diag_embed(var)): a batched Cholesky of dense d x d matrices per call where an Independent(Normal) does O(d) work."""
PLANTED = ("hotspot", "redundant", "memory")
TOL = 1e-4
import torch
from torch.distributions import MultivariateNormal

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
            dist = MultivariateNormal(mu, covariance_matrix=torch.diag_embed(var))
            nll.append(-dist.log_prob(targets[b]))
    return torch.stack(nll)


if __name__ == "__main__":
    result = main()
