import torch

torch.manual_seed(0)
L, D = 768, 32
q = torch.randn(L, D)
k = torch.randn(L, D)
v = torch.randn(L, D)
MASK = torch.triu(torch.full((L, L), float("-inf")), diagonal=1)


def attention(q, k, v):
    return torch.softmax(q @ k.T / D ** 0.5 + MASK, dim=-1) @ v


def main():
    out = torch.zeros(L, D)
    for _ in range(25):
        out += attention(q, k, v)
    return out


if __name__ == "__main__":
    result = main()
