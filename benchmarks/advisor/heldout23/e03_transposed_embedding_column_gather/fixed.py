import torch

torch.manual_seed(0)
DIM, N_ITEMS, BATCH, STEPS = 64, 150_000, 2048, 200
table_t = torch.randn(DIM, N_ITEMS) * 0.1
queries = torch.randn(STEPS, DIM)
batches = torch.randint(0, N_ITEMS, (STEPS, BATCH))


def main():
    table = table_t.t().contiguous()
    best = torch.empty(STEPS)
    for s in range(STEPS):
        items = table[batches[s]]
        scores = items @ queries[s]
        best[s] = scores.max()
    return best


if __name__ == "__main__":
    result = main()
