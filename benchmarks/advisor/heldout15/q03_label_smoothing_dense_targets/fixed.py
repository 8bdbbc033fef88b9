import torch
from torch import nn

torch.manual_seed(0)
B, N_CLS, EPS = 512, 8192, 0.1
logits = (2.0 * torch.randn(B, N_CLS)).requires_grad_(True)
target = torch.randint(0, N_CLS, (B,))


def main():
    total = torch.zeros(())
    for it in range(25):
        loss = nn.functional.cross_entropy(logits, target, label_smoothing=EPS)
        loss.backward()
        total += loss.detach()
    grad_rows = logits.grad[:8] * (B * N_CLS / 25)  # mean over the 25 iterations, scaled to O(1)
    return torch.cat([total.view(1), grad_rows.flatten()])


if __name__ == "__main__":
    result = main()
