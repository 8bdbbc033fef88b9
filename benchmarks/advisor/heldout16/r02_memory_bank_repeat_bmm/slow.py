"""Toy benchmark of cross-attention from each sample's queries to a shared prototype/memory bank: the bank is
`.repeat()`-ed to the batch size on every call so that `torch.bmm` can be used (a full copy per sample).
Modelled on forum threads like "expand/repeat a shared matrix for bmm is slow and uses lots of memory"."""
PLANTED = ["memory", "redundant"]
TOL = 1e-4
import torch

torch.manual_seed(0)
B, TQ, M, D, ITERS = 64, 32, 1024, 128, 12

bank_keys = torch.randn(M, D) / D ** 0.5
bank_values = torch.randn(M, D)
queries = torch.randn(B, TQ, D)


def read_memory(q, keys, values):
    b = q.shape[0]
    k = keys.unsqueeze(0).repeat(b, 1, 1)
    v = values.unsqueeze(0).repeat(b, 1, 1)
    attn = torch.softmax(torch.bmm(q, k.transpose(1, 2)), dim=-1)
    return torch.bmm(attn, v)


def main():
    acc = torch.zeros(TQ, D)
    for _ in range(ITERS):
        acc += read_memory(queries, bank_keys, bank_values).mean(dim=0)
    return acc


if __name__ == "__main__":
    result = main()
