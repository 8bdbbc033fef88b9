"""An attention function that builds its causal mask with torch.full + torch.triu on every call
(hand-written decoder code)."""
PLANTED = ("redundant",)
TOL = 1e-4
import torch

torch.manual_seed(0)
L, D = 768, 32
q = torch.randn(L, D)
k = torch.randn(L, D)
v = torch.randn(L, D)


def attention(q, k, v):
    mask = torch.triu(torch.full((L, L), float("-inf")), diagonal=1)
    return torch.softmax(q @ k.T / D ** 0.5 + mask, dim=-1) @ v


def main():
    out = torch.zeros(L, D)
    for _ in range(25):
        out += attention(q, k, v)
    return out


if __name__ == "__main__":
    result = main()
