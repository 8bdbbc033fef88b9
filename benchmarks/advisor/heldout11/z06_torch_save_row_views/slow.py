"""An embedding job that encodes a corpus in one pass, then hands each shard to a consumer as bytes written with
``torch.save(emb[i:i + SHARD], buf)``; a slice is a view, and ``torch.save`` keeps views by writing the whole
underlying storage, so every shard serialises (and the consumer reads back) the full embedding matrix (GitHub
issues and forum threads: "torch.save of a slice produces a huge file"; the docs say to ``clone()`` first)."""
PLANTED = ("redundant", "memory")
TOL = 1e-5
import io

import torch

torch.manual_seed(0)
N_DOCS, N_IN, DIM, SHARD = 16_384, 256, 128, 256
docs = torch.randn(N_DOCS, N_IN)
encoder = torch.nn.Sequential(torch.nn.Linear(N_IN, 512), torch.nn.GELU(), torch.nn.Linear(512, DIM))
centroids = torch.nn.functional.normalize(torch.randn(32, DIM), dim=1)


def encode(x):
    with torch.no_grad():
        return torch.nn.functional.normalize(encoder(x), dim=1)


def to_bytes(shard):
    buf = io.BytesIO()
    torch.save(shard, buf)
    return buf.getvalue()


def consume(blob):
    shard = torch.load(io.BytesIO(blob))
    sims = shard @ centroids.T
    return torch.bincount(sims.argmax(1), minlength=32), sims.max(1).values.sum()


def main():
    emb = encode(docs)
    counts = torch.zeros(32, dtype=torch.long)
    score = torch.zeros(())
    for i in range(0, N_DOCS, SHARD):
        c, s = consume(to_bytes(emb[i:i + SHARD]))
        counts += c
        score += s
    return torch.cat([counts.double(), score.reshape(1).double()])


if __name__ == "__main__":
    result = main()
