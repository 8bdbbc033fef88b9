import torch

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1536), torch.nn.ReLU(),
    torch.nn.Linear(1536, 1536), torch.nn.ReLU(),
    torch.nn.Linear(1536, 1536), torch.nn.ReLU(),
    torch.nn.Linear(1536, 10),
)
model.eval()
model.requires_grad_(False)                      # saliency needs d score / d input only
inputs = torch.randn(6, 256, 256)


def main():
    maps = []
    for b in range(inputs.shape[0]):
        x = inputs[b].clone().requires_grad_(True)
        logits = model(x)
        score = logits.max(dim=1).values.sum()
        (grad,) = torch.autograd.grad(score, x)
        maps.append(grad.abs().amax(dim=1))
    return torch.cat(maps)


if __name__ == "__main__":
    result = main()
