import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, HEADS, T, LAYERS, ITERS, MAX_POS = 128, 2, 512, 4, 32, 8192


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryAttention(nn.Module):
    def __init__(self, dim, heads, max_pos=MAX_POS, base=10000.0):
        super().__init__()
        self.heads, self.dh, self.max_pos, self.base = heads, dim // heads, max_pos, base
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self._cache = {}

    def rope(self, seq_len):
        if seq_len not in self._cache:
            self._cache[seq_len] = self._build(seq_len)
        return self._cache[seq_len]

    def _build(self, seq_len):
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dh, 2).float() / self.dh))
        t = torch.arange(self.max_pos).float()
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[:seq_len], emb.sin()[:seq_len]

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        cos, sin = self.rope(t)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.out(y.transpose(1, 2).reshape(b, t, -1))


model = nn.Sequential(*[RotaryAttention(D, HEADS) for _ in range(LAYERS)]).eval()
x = torch.randn(1, T, D)


def main():
    acc = torch.zeros(D)
    with torch.no_grad():
        for _ in range(ITERS):
            acc += model(x).mean(dim=(0, 1))
    return acc


if __name__ == "__main__":
    result = main()
