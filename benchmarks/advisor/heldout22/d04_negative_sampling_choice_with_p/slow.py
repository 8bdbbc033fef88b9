"""Skip-gram training whose `Dataset.__getitem__` draws each pair's negatives with `rng.choice(V, k, p=noise)`,
which re-validates and re-cumsums the whole 60k-word noise distribution on every call (StackOverflow:
"numpy random.choice with probabilities is slow inside my data loader")."""
PLANTED = ("input_pipeline", "redundant", "hotspot")
TOL = 1e-5
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
V, DIM, K, N_PAIRS = 60_000, 32, 5, 1_600
data_rng = np.random.default_rng(0)
counts = data_rng.zipf(1.3, V).astype(np.float64)
noise = counts**0.75 / (counts**0.75).sum()
centers = data_rng.integers(0, V, N_PAIRS)
contexts = data_rng.integers(0, V, N_PAIRS)


class SkipGramPairs(Dataset):
    def __init__(self, centers, contexts, noise, k, seed):
        self.centers, self.contexts, self.noise, self.k = centers, contexts, noise, k
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.centers)

    def __getitem__(self, i):
        negatives = self.rng.choice(len(self.noise), self.k, p=self.noise)
        return self.centers[i], self.contexts[i], negatives


def main():
    emb_in = torch.nn.Embedding(V, DIM, sparse=True)
    emb_out = torch.nn.Embedding(V, DIM, sparse=True)
    torch.nn.init.normal_(emb_out.weight, std=0.1)
    opt = torch.optim.SGD(list(emb_in.parameters()) + list(emb_out.parameters()), lr=0.5)
    loader = DataLoader(SkipGramPairs(centers, contexts, noise, K, seed=1), batch_size=64, shuffle=False)
    losses = []
    for c, o, neg in loader:
        v = emb_in(c)
        pos = (v * emb_out(o)).sum(-1)
        negs = torch.bmm(emb_out(neg), v.unsqueeze(-1)).squeeze(-1)
        loss = -(torch.nn.functional.logsigmoid(pos).mean() + torch.nn.functional.logsigmoid(-negs).sum(-1).mean())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
