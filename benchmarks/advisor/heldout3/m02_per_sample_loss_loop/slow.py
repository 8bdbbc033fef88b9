"""Per-sample weighted loss computed in a Python loop over the batch, one cross_entropy call per sample,
then stacked and averaged (StackOverflow: "how to weight each sample's loss": the accepted answer's
reduction='none' is what the fix uses)."""
PLANTED = ("launch_overhead", "host_bound")
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, D, C = 4096, 64, 10
X = torch.randn(N, D)
Y = (X[:, :C] + 0.5 * torch.randn(N, C)).argmax(1)
W = torch.rand(N) + 0.5          # per-sample weights (e.g. inverse frequency, confidence)


def main():
    model = torch.nn.Sequential(torch.nn.Linear(D, 256), torch.nn.GELU(), torch.nn.Linear(256, 256),
                                torch.nn.GELU(), torch.nn.Linear(256, C))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    bs = 128
    log = []
    for epoch in range(2):
        for start in range(0, N, bs):
            x, y, w = X[start:start + bs], Y[start:start + bs], W[start:start + bs]
            logits = model(x)
            losses = []
            for i in range(x.shape[0]):
                losses.append(w[i] * F.cross_entropy(logits[i].unsqueeze(0), y[i].unsqueeze(0)))
            loss = torch.stack(losses).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            log.append(loss.detach())
    return torch.stack(log)


if __name__ == "__main__":
    result = main()
