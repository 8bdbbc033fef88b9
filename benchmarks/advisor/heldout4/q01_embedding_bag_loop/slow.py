"""Bag-of-words document encoder that averages each document's token embeddings in a Python loop over
the documents (one embedding lookup, one mean and later one stack per document) before a small MLP
classifier (PyTorch forums: "averaging variable-length embeddings is slow, how to batch it").
The fix: one ``F.embedding_bag(..., mode="mean")`` call with offsets for the whole batch."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
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
            docs = torch.split(tokens, lengths.tolist())
            vecs = [emb(doc).mean(0) for doc in docs]
            x = torch.stack(vecs)
            logits = mlp(x)
            total += logits.softmax(-1).sum(0)
    return total


if __name__ == "__main__":
    result = main()
