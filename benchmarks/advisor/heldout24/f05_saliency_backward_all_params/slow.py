"""Input-gradient saliency maps computed with score.backward() on a model whose parameters still require grad: every backward also computes (and accumulates) all weight gradients nobody reads."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-5
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1536), torch.nn.ReLU(),
    torch.nn.Linear(1536, 1536), torch.nn.ReLU(),
    torch.nn.Linear(1536, 1536), torch.nn.ReLU(),
    torch.nn.Linear(1536, 10),
)
model.eval()
inputs = torch.randn(6, 256, 256)


def main():
    maps = []
    for b in range(inputs.shape[0]):
        x = inputs[b].clone().requires_grad_(True)
        logits = model(x)
        score = logits.max(dim=1).values.sum()
        model.zero_grad()
        score.backward()
        maps.append(x.grad.abs().amax(dim=1))
    return torch.cat(maps)


if __name__ == "__main__":
    result = main()
