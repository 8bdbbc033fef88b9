"""A training script where ``torch.autograd.set_detect_anomaly(True)`` was switched on while hunting a NaN
weeks ago and never switched off (PyTorch forums / GitHub issues: "training became 2x slower", answer:
"anomaly detection is a debugging tool — it records a traceback for every op in the forward pass and
checks every gradient for NaN in the backward pass"). The fix: remove the line (or enable it only
around the step being debugged)."""
PLANTED = ("host_bound", "launch_overhead", "redundant")
TOL = 1e-4
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.autograd.set_detect_anomaly(True)  # TODO remove once the NaN is found
torch.manual_seed(0)

N_IN, WIDTH, DEPTH, N_CLASSES, BATCH, STEPS = 32, 128, 6, 10, 64, 250


class ResidualMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(N_IN, WIDTH)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(WIDTH), nn.Linear(WIDTH, WIDTH), nn.GELU(), nn.Linear(WIDTH, WIDTH))
            for _ in range(DEPTH))
        self.out = nn.Linear(WIDTH, N_CLASSES)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + block(h)
        return self.out(h)


model = ResidualMLP()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
X = torch.randn(STEPS, BATCH, N_IN)
Y = torch.randint(0, N_CLASSES, (STEPS, BATCH))


def train():
    losses = []
    for step in range(STEPS):
        loss = F.cross_entropy(model(X[step]), Y[step])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return torch.tensor(losses)


if __name__ == "__main__":
    result = train()
