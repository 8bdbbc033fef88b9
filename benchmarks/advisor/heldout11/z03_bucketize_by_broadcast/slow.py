"""Quantile-bin embeddings for a tabular model whose forward finds each value's bin by comparing it with every
bin edge through broadcasting, ``(x[..., None] > edges).sum(-1)``, materialising a batch x features x edges
boolean tensor per batch (code-review threads on "piecewise / binned numerical embeddings"; a sorted search,
``torch.searchsorted``/``torch.bucketize``, does it in log time without the temporary)."""
PLANTED = ("hotspot", "memory")
TOL = 1e-5
import torch

torch.manual_seed(0)
N, F, BINS, DIM = 16_384, 24, 56, 16
BATCH, EPOCHS = 1024, 4
X = torch.randn(N, F) * torch.linspace(0.5, 3.0, F)
y = (X[:, :6].sin().sum(1) + 0.1 * torch.randn(N) > 0).float()
# per-feature quantile edges, (F, BINS - 1), sorted along the last dim
EDGES = torch.quantile(X, torch.linspace(0, 1, BINS + 1)[1:-1], dim=0).T.contiguous()


class BinnedEmbeddingNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(F * BINS, DIM)
        self.register_buffer("offsets", torch.arange(F) * BINS)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(F * DIM, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))

    def bin_index(self, x):
        return (x.unsqueeze(-1) > EDGES).sum(-1)  # (B, F): number of edges below each value

    def forward(self, x):
        idx = self.bin_index(x) + self.offsets
        return self.mlp(self.emb(idx).flatten(1)).squeeze(1)


def main():
    model = BinnedEmbeddingNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(EPOCHS):
        for i in range(0, N, BATCH):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model(X[i:i + BATCH]), y[i:i + BATCH])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
