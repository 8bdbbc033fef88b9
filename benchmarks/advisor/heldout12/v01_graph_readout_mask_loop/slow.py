"""Per-graph readout of a batched graph network written as a Python loop over graphs with a boolean mask
(``h[batch == g].mean(0)``), which scans every node of the batch once per graph (PyTorch forums: "global
mean pooling for a batch of graphs is slow"); one scatter-add over the batch vector does the same."""
PLANTED = ("host_bound", "launch_overhead", "hotspot")
TOL = 1e-4
import torch

torch.manual_seed(0)
N_BATCHES, GRAPHS, DIM = 8, 1500, 32

# molecules: 8 to 24 atoms each, ring-like bonds plus a few random extra edges
batches = []
for _ in range(N_BATCHES):
    sizes = torch.randint(8, 25, (GRAPHS,))
    offsets = torch.cumsum(sizes, 0) - sizes
    batch = torch.repeat_interleave(torch.arange(GRAPHS), sizes)
    local = torch.arange(batch.numel()) - offsets[batch]
    nxt = offsets[batch] + (local + 1) % sizes[batch]
    src = torch.cat([torch.arange(batch.numel()), nxt])
    dst = torch.cat([nxt, torch.arange(batch.numel())])
    x = torch.randn(batch.numel(), DIM)
    batches.append((x, src, dst, batch))

lin1 = torch.nn.Linear(DIM, DIM)
lin2 = torch.nn.Linear(DIM, DIM)
head = torch.nn.Sequential(torch.nn.Linear(DIM, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))


def message_pass(h, src, dst, lin):
    agg = torch.zeros_like(h).index_add_(0, dst, h[src])
    return torch.relu(lin(h + agg))


def readout(h, batch):
    graphs = []
    for g in range(GRAPHS):
        graphs.append(h[batch == g].mean(0))
    return torch.stack(graphs)


def main():
    preds = []
    with torch.no_grad():
        for x, src, dst, batch in batches:
            h = message_pass(x, src, dst, lin1)
            h = message_pass(h, src, dst, lin2)
            preds.append(head(readout(h, batch)).squeeze(1))
    return torch.cat(preds)


if __name__ == "__main__":
    result = main()
