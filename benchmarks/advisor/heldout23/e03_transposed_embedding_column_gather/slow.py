"""Item-retrieval scoring gathers item vectors from a table kept in (dim, n_items) layout, as exported from
another framework, with `table[:, idx].t()` every batch: a strided column gather of a row-major tensor
(forums: "index_select along dim 1 is much slower than dim 0")."""
PLANTED = ("layout", "memory", "hotspot")
TOL = 1e-5
import torch

torch.manual_seed(0)
DIM, N_ITEMS, BATCH, STEPS = 64, 150_000, 2048, 200
table_t = torch.randn(DIM, N_ITEMS) * 0.1
queries = torch.randn(STEPS, DIM)
batches = torch.randint(0, N_ITEMS, (STEPS, BATCH))


def main():
    best = torch.empty(STEPS)
    for s in range(STEPS):
        items = table_t[:, batches[s]].t()
        scores = items @ queries[s]
        best[s] = scores.max()
    return best


if __name__ == "__main__":
    result = main()
