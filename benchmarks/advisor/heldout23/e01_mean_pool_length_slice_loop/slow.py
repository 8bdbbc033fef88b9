"""Text-classifier inference mean-pools each padded sequence over its true length with a Python loop of one
slice + mean per sequence, instead of one masked sum divided by the lengths (forums: "masked mean pooling
without a for loop over the batch")."""
PLANTED = ("launch_overhead", "host_bound")
TOL = 1e-5
import torch

torch.manual_seed(0)
N_BATCHES, B, T, D, VOCAB = 160, 256, 16, 32, 2000
tokens = torch.randint(1, VOCAB, (N_BATCHES, B, T))
lengths = torch.randint(1, T + 1, (N_BATCHES, B))
emb = torch.nn.Embedding(VOCAB, D)
proj = torch.nn.Linear(D, D)
head = torch.nn.Linear(D, 4)


def pool(h, lens):
    out = torch.empty(h.shape[0], h.shape[2])
    for i, n in enumerate(lens.tolist()):
        out[i] = h[i, :n].mean(0)
    return out


def main():
    outs = []
    with torch.no_grad():
        for b in range(N_BATCHES):
            h = torch.tanh(proj(emb(tokens[b])))
            outs.append(head(pool(h, lengths[b])))
    return torch.cat(outs)


if __name__ == "__main__":
    result = main()
