"""Retrieval eval: pairwise cosine similarity of query and gallery embeddings via
F.cosine_similarity(q[:, None], g[None], dim=-1), which materialises (chunk, N, D) products, then top-5 recall.
Modelled on StackOverflow "pairwise cosine similarity in PyTorch is slow / runs out of memory"."""
PLANTED = ("memory", "hotspot")
TOL = 1e-5
import torch
import torch.nn.functional as F

torch.manual_seed(0)
NQ, NG, D = 250, 2000, 128
gallery = torch.randn(NG, D)
gal_labels = torch.randint(0, 200, (NG,))
q_idx = torch.randint(0, NG, (NQ,))
queries = gallery[q_idx] + 0.8 * torch.randn(NQ, D)


def similarity(q, g):
    return torch.cat([F.cosine_similarity(q[i:i + 50, None, :], g[None, :, :], dim=-1)
                      for i in range(0, q.shape[0], 50)])


def main():
    with torch.no_grad():
        sim = similarity(queries, gallery)
        top = sim.topk(5, dim=1)
        hit = (gal_labels[top.indices] == gal_labels[q_idx][:, None]).any(dim=1).float()
        return torch.stack([hit.mean(), top.values.mean()])


if __name__ == "__main__":
    result = main()
