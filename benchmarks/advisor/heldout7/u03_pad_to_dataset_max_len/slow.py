"""Batched inference of a token classifier on sequences that were all padded to the model's maximum length
when the corpus was tokenised (padding="max_length"), though most are short: the per-token layers spend
most of their work on padding that the masked pooling then throws away (PyTorch forums thread: "inference
on short texts is as slow as on long ones")."""
PLANTED = ("redundant", "utilization", "memory")
TOL = 1e-4
import torch

torch.manual_seed(0)
VOCAB, D, MAX_LEN, N = 5000, 96, 512, 512
lengths = (8 + torch.distributions.LogNormal(3.6, 0.7).sample((N,))).long().clamp(max=MAX_LEN)
ids = torch.zeros(N, MAX_LEN, dtype=torch.long)
for i, n in enumerate(lengths.tolist()):
    ids[i, :n] = torch.randint(1, VOCAB, (n,))


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, D, padding_idx=0)
        self.token_mlp = torch.nn.Sequential(torch.nn.Linear(D, 4 * D), torch.nn.GELU(), torch.nn.Linear(4 * D, D),
                                             torch.nn.LayerNorm(D))
        self.out = torch.nn.Linear(D, 3)

    def forward(self, batch_ids):
        mask = (batch_ids != 0).unsqueeze(-1).float()
        h = self.token_mlp(self.emb(batch_ids))
        pooled = (h * mask).sum(1) / mask.sum(1)
        return self.out(pooled)


model = Classifier().eval()


@torch.no_grad()
def main():
    outs = []
    for start in range(0, N, 64):
        batch = ids[start:start + 64]
        outs.append(model(batch))
    return torch.cat(outs)


if __name__ == "__main__":
    result = main()
