import torch
from torch.nn.utils.rnn import pack_padded_sequence

torch.manual_seed(0)
N_BATCHES, B, T, D, H = 140, 256, 24, 8, 16
seqs = torch.randn(N_BATCHES, B, T, D)
lengths = torch.randint(1, T + 1, (N_BATCHES, B))
gru = torch.nn.GRU(D, H, batch_first=True)


def encode(x, lens):
    order = torch.sort(lens, descending=True, stable=True).indices
    packed = pack_padded_sequence(x[order], lens[order], batch_first=True, enforce_sorted=True)
    _, h = gru(packed)
    out = torch.empty_like(h[0])
    out[order] = h[0]
    return out


def main():
    with torch.no_grad():
        return torch.cat([encode(seqs[b], lengths[b]) for b in range(N_BATCHES)])


if __name__ == "__main__":
    result = main()
