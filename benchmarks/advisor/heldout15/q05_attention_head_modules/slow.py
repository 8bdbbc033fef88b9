"""Causal self-attention of a small GPT written as in a from-scratch tutorial, benchmarked the toy way (one fixed
batch, no_grad, outputs summed). Planted: every head is its own module with separate q/k/v Linear layers,
its own masked softmax and a torch.cat over heads, dozens of tiny ops where one fused QKV projection and one
batched attention do the same. Modelled on a code review of a "GPT from scratch" notebook."""
PLANTED = ("launch_overhead", "fusion", "utilization")
TOL = 1e-4
import torch
from torch import nn

torch.manual_seed(0)
B, T, D, N_HEAD = 4, 64, 128, 16
HS = D // N_HEAD
w_q, w_k, w_v = (torch.randn(D, D) * D ** -0.5 for _ in range(3))
w_proj = torch.randn(D, D) * D ** -0.5
x = torch.randn(B, T, D)


class Head(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.key = nn.Linear(D, HS, bias=False)
        self.query = nn.Linear(D, HS, bias=False)
        self.value = nn.Linear(D, HS, bias=False)
        rows = slice(h * HS, (h + 1) * HS)
        with torch.no_grad():
            self.query.weight.copy_(w_q[rows])
            self.key.weight.copy_(w_k[rows])
            self.value.weight.copy_(w_v[rows])
        self.register_buffer("tril", torch.tril(torch.ones(T, T)))

    def forward(self, x):
        k, q, v = self.key(x), self.query(x), self.value(x)
        wei = q @ k.transpose(-2, -1) * HS ** -0.5
        wei = wei.masked_fill(self.tril[:x.size(1), :x.size(1)] == 0, float("-inf"))
        wei = torch.softmax(wei, dim=-1)
        return wei @ v


class MultiHeadAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([Head(h) for h in range(N_HEAD)])
        self.proj = nn.Linear(D, D, bias=False)
        with torch.no_grad():
            self.proj.weight.copy_(w_proj)

    def forward(self, x):
        return self.proj(torch.cat([h(x) for h in self.heads], dim=-1))


attn = MultiHeadAttention().eval()


def main():
    total = torch.zeros(B, T, D)
    with torch.no_grad():
        for it in range(250):
            total += attn(x)
    return total / 250


if __name__ == "__main__":
    result = main()
