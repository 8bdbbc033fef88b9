"""Item-item co-occurrence counts for a recommender computed as ``A.T @ A`` on a 0/1 interaction matrix
kept as int64 (``.long()``, because "counts are integers"): integer matmul has no BLAS kernel on CPU and
runs many times slower than float32 (PyTorch forums / GitHub issues: "matmul with LongTensor is very
slow on CPU"). The fix: do the product in float32 (exact for these counts) and convert the result."""
PLANTED = ("precision",)
TOL = 1e-4
import torch

torch.manual_seed(0)
USERS, ITEMS = 4_000, 800
popularity = torch.rand(ITEMS) * 0.12
clicks = (torch.rand(USERS, ITEMS) < popularity).long()


def main():
    co = clicks.T @ clicks
    counts = co.diagonal()
    union = counts[:, None] + counts[None, :] - co
    jaccard = co.double() / union.clamp(min=1).double()
    jaccard.fill_diagonal_(0.0)
    top = jaccard.topk(10, dim=1)
    return torch.stack([top.values.sum(1), top.indices[:, 0].double()], 1)


if __name__ == "__main__":
    result = main()
