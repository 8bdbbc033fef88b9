import torch
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, DOCS, BATCHES = 30_000, 128, 2_000, 6
emb = torch.nn.Embedding(VOCAB, DIM)
mlp = torch.nn.Sequential(torch.nn.Linear(DIM, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                          torch.nn.ReLU(), torch.nn.Linear(512, 20))
batches = []
for _ in range(BATCHES):
    lengths = torch.randint(5, 120, (DOCS,))
    tokens = torch.randint(0, VOCAB, (int(lengths.sum()),))
    batches.append((tokens, lengths))


def main():
    total = torch.zeros(20)
    with torch.no_grad():
        for tokens, lengths in batches:
            offsets = torch.cumsum(lengths, 0) - lengths
            x = F.embedding_bag(tokens, emb.weight, offsets, mode="mean")
            logits = mlp(x)
            total += logits.softmax(-1).sum(0)
    return total


if __name__ == "__main__":
    result = main()
