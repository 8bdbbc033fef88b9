import torch

torch.manual_seed(0)
scores = torch.randn(2000, 4096)


def main():
    for _ in range(4):
        top = torch.topk(scores, 10, dim=1).values
    return top


if __name__ == "__main__":
    result = main()
