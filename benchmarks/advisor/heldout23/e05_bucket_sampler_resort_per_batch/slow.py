"""Length-bucketed training: the custom batch sampler re-sorts all 120k sequence lengths with `sorted(...,
key=...)` for every batch it yields, instead of once per epoch, before the DataLoader pads and collates
(GitHub issue: "bucket sampler makes the data loader the bottleneck")."""
PLANTED = ("input_pipeline", "redundant", "host_bound")
TOL = 1e-4
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, Sampler

torch.manual_seed(0)
N_SEQ, VOCAB, BATCH, N_BATCHES, DIM = 120_000, 500, 64, 40, 32
seq_lengths = torch.randint(4, 48, (N_SEQ,))
offsets = torch.cat([torch.zeros(1, dtype=torch.long), seq_lengths.cumsum(0)])
flat_tokens = torch.randint(1, VOCAB, (int(offsets[-1]),))
labels = torch.randint(0, 2, (N_SEQ,)).float()


class Sequences(Dataset):
    def __len__(self):
        return N_SEQ

    def __getitem__(self, i):
        return flat_tokens[offsets[i]:offsets[i + 1]], labels[i]


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, n_batches, seed):
        self.lengths = lengths.tolist()
        self.batch_size = batch_size
        self.n_batches = n_batches
        self.seed = seed

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        n_buckets = len(self.lengths) // self.batch_size
        picks = torch.randperm(n_buckets, generator=g)[: self.n_batches].tolist()
        for b in picks:
            order = sorted(range(len(self.lengths)), key=self.lengths.__getitem__)
            yield order[b * self.batch_size:(b + 1) * self.batch_size]


def collate(items):
    seqs, ys = zip(*items)
    return pad_sequence(list(seqs), batch_first=True), torch.stack(ys)


emb = torch.nn.EmbeddingBag(VOCAB, DIM, mode="mean", padding_idx=0)
head = torch.nn.Linear(DIM, 1)
opt = torch.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.1)


def main():
    loader = DataLoader(Sequences(), batch_sampler=BucketBatchSampler(seq_lengths, BATCH, N_BATCHES, 1),
                        collate_fn=collate)
    losses = []
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(head(emb(x)).squeeze(1), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
