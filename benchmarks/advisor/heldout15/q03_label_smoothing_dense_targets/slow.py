"""Label-smoothed cross-entropy benchmarked as forum posts do: one fixed batch of logits and targets, forward and
backward in a loop, losses summed. Planted: the loss is written by hand with a dense int64 one-hot target, its
float copy and more logits-sized temporaries, where F.cross_entropy(label_smoothing=...) needs none. Modelled
on a PyTorch forums thread ("my label smoothing loss is much slower than nn.CrossEntropyLoss")."""
PLANTED = ("memory", "fusion")
TOL = 1e-4
import torch
from torch import nn

torch.manual_seed(0)
B, N_CLS, EPS = 512, 8192, 0.1
logits = (2.0 * torch.randn(B, N_CLS)).requires_grad_(True)
target = torch.randint(0, N_CLS, (B,))


def smoothed_cross_entropy(logits, target, eps):
    n_cls = logits.size(1)
    one_hot = nn.functional.one_hot(target, n_cls).float()
    soft = one_hot * (1.0 - eps) + eps / n_cls
    log_prob = nn.functional.log_softmax(logits, dim=1)
    return (-soft * log_prob).sum(dim=1).mean()


def main():
    total = torch.zeros(())
    for it in range(25):
        loss = smoothed_cross_entropy(logits, target, EPS)
        loss.backward()
        total += loss.detach()
    grad_rows = logits.grad[:8] * (B * N_CLS / 25)  # mean over the 25 iterations, scaled to O(1)
    return torch.cat([total.view(1), grad_rows.flatten()])


if __name__ == "__main__":
    result = main()
