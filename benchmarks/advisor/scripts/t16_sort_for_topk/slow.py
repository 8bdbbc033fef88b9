"""A full sort to take the k largest (forums: "use topk instead of sort()[:k]")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-5
import torch

torch.manual_seed(0)
scores = torch.randn(2000, 4096)


def main():
    for _ in range(4):
        top = torch.sort(scores, dim=1, descending=True).values[:, :10]
    return top


if __name__ == "__main__":
    result = main()
