"""Toy benchmark of an embedding-retrieval index queried with one fixed batch: the index keeps the corpus
embeddings in float64 "for exact cosine scores", so every scoring matmul and top-k runs in double precision.
Modelled on forum/GitHub threads like "brute-force similarity search slower than expected on CPU"."""
PLANTED = ["precision", "hotspot"]
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)
CORPUS, DIM, QUERIES, K, ITERS = 20_000, 256, 256, 10, 10


class DenseIndex:
    def __init__(self, embeddings):
        self.emb = F.normalize(embeddings.double(), dim=1)

    def search(self, q, k):
        scores = F.normalize(q.double(), dim=1) @ self.emb.T
        return torch.topk(scores, k, dim=1)


corpus = torch.randn(CORPUS, DIM)
index = DenseIndex(corpus)
queries = corpus[:QUERIES] + 0.5 * torch.randn(QUERIES, DIM)


def main():
    total = torch.zeros(QUERIES, K, dtype=torch.float64)
    for _ in range(ITERS):
        values, _ = index.search(queries, K)
        total += values
    return total


if __name__ == "__main__":
    result = main()
