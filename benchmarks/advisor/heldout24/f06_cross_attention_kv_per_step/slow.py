"""Greedy decoding whose cross-attention re-projects the fixed encoder memory to keys and values at every step, instead of computing them once before the loop."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-5
import torch

torch.manual_seed(0)
B, S, D, V, T = 16, 256, 256, 500, 40
memory = torch.randn(B, S, D)                  # encoder output, fixed during decoding
embed = torch.nn.Embedding(V, D)
q_proj = torch.nn.Linear(D, D)
k_proj = torch.nn.Linear(D, D)
v_proj = torch.nn.Linear(D, D)
out_proj = torch.nn.Linear(D, V)
cell = torch.nn.GRUCell(2 * D, D)


def cross_attend(h, memory):
    q = q_proj(h).unsqueeze(1)                           # (B, 1, D)
    k = k_proj(memory)                                   # (B, S, D)  recomputed each call
    v = v_proj(memory)
    att = torch.softmax(q @ k.transpose(1, 2) / D ** 0.5, dim=-1)
    return (att @ v).squeeze(1)


def main():
    tokens = torch.zeros(B, dtype=torch.long)
    h = torch.zeros(B, D)
    out = []
    with torch.no_grad():
        for t in range(T):
            ctx = cross_attend(h, memory)
            h = cell(torch.cat([embed(tokens), ctx], dim=1), h)
            tokens = out_proj(h).argmax(dim=1)
            out.append(tokens)
    return torch.stack(out, dim=1).double() + h.sum(dim=1, keepdim=True).double()


if __name__ == "__main__":
    result = main()
