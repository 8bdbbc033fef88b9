import torch

torch.manual_seed(0)
N_HEADS = 3
heads = []
for h in range(N_HEADS):
    n_pos = 6000 + 200 * h
    n_neg = 7000 - 150 * h
    pos = (torch.randn(n_pos) + 0.5 + 0.05 * h).mul(64).round().div(64)
    neg = torch.randn(n_neg).mul(64).round().div(64)
    heads.append((pos, neg))


def auc(pos, neg):
    neg_sorted = neg.sort().values
    below = torch.searchsorted(neg_sorted, pos, right=False)
    below_or_equal = torch.searchsorted(neg_sorted, pos, right=True)
    greater = below.sum()
    ties = (below_or_equal - below).sum()
    return (greater + 0.5 * ties) / (pos.numel() * neg.numel())


def main():
    return torch.stack([auc(pos, neg) for pos, neg in heads])


if __name__ == "__main__":
    result = main()
