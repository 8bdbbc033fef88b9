import torch
import torch.nn.functional as F

torch.manual_seed(0)
CORPUS, DIM, QUERIES, K, ITERS = 20_000, 256, 256, 10, 10


class DenseIndex:
    def __init__(self, embeddings):
        self.emb = F.normalize(embeddings, dim=1)

    def search(self, q, k):
        scores = F.normalize(q, dim=1) @ self.emb.T
        return torch.topk(scores, k, dim=1)


corpus = torch.randn(CORPUS, DIM)
index = DenseIndex(corpus)
queries = corpus[:QUERIES] + 0.5 * torch.randn(QUERIES, DIM)


def main():
    total = torch.zeros(QUERIES, K, dtype=torch.float64)
    for _ in range(ITERS):
        values, _ = index.search(queries, K)
        total += values.double()
    return total


if __name__ == "__main__":
    result = main()
