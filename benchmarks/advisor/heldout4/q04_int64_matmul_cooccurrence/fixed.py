import torch

torch.manual_seed(0)
USERS, ITEMS = 4_000, 800
popularity = torch.rand(ITEMS) * 0.12
clicks = (torch.rand(USERS, ITEMS) < popularity).long()


def main():
    a = clicks.float()
    co = (a.T @ a).round().long()
    counts = co.diagonal()
    union = counts[:, None] + counts[None, :] - co
    jaccard = co.double() / union.clamp(min=1).double()
    jaccard.fill_diagonal_(0.0)
    top = jaccard.topk(10, dim=1)
    return torch.stack([top.values.sum(1), top.indices[:, 0].double()], 1)


if __name__ == "__main__":
    result = main()
