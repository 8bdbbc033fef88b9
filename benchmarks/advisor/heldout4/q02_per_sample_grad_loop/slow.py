"""Per-sample gradient norms (for clipping / data valuation) computed by a Python loop over the samples,
each doing its own tiny forward, backward and norm (PyTorch forums: "computing per-sample gradients
is very slow"). The fix: ``torch.func.vmap(torch.func.grad(...))`` over the batch."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, D, H = 1_200, 32, 64
model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.Tanh(), torch.nn.Linear(H, H), torch.nn.Tanh(),
                            torch.nn.Linear(H, 1))
X = torch.randn(N, D)
y = torch.randn(N, 1)


def main():
    norms = []
    for i in range(N):
        model.zero_grad()
        loss = torch.nn.functional.mse_loss(model(X[i:i + 1]), y[i:i + 1])
        loss.backward()
        sq = sum(p.grad.pow(2).sum() for p in model.parameters())
        norms.append(sq.sqrt())
    return torch.stack(norms)


if __name__ == "__main__":
    result = main()
