"""Adversarial (FGSM) training of a small image classifier, the input gradient taken with
``create_graph=True`` (modelled on a PyTorch forums thread: "adversarial training is 2x slower than I
expected, and memory keeps climbing within the step").

The perturbation only uses the sign of the input gradient, so no gradient flows through it, yet with
``create_graph=True`` the first backward is recorded as a graph and the adversarial example stays attached
to it: the training backward then walks that whole double-backward graph, carrying zeros.
"""
PLANTED = ("redundant", "hotspot", "memory")
TOL = 1e-4

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

BATCH = 32
STEPS = 24
EPS = 0.03


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 7 * 7, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def synthetic_digits(gen, n):
    labels = torch.randint(0, 10, (n,), generator=gen)
    base = torch.zeros(n, 1, 28, 28)
    for k in range(10):
        base[labels == k, 0, 2 * k + 2: 2 * k + 6, 4:24] = 1.0
    return (base + 0.3 * torch.randn(n, 1, 28, 28, generator=gen)).clamp(0, 1), labels


def fgsm(model, x, y, eps):
    x = x.clone().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    (grad,) = torch.autograd.grad(loss, x, create_graph=True)
    return (x + eps * grad.sign()).clamp(0, 1)


def train():
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    gen = torch.Generator().manual_seed(7)
    losses = []
    for step in range(STEPS):
        x, y = synthetic_digits(gen, BATCH)
        x_adv = fgsm(model, x, y, EPS)
        logits = model(torch.cat([x, x_adv]))
        loss = F.cross_entropy(logits, torch.cat([y, y]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return torch.cat([torch.tensor(losses), model.fc.weight.detach().flatten()[:500]])


if __name__ == "__main__":
    result = train()
