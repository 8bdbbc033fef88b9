"""Multi-task training with one shared encoder and three heads, each head's loss back-propagated on its
own with ``retain_graph=True`` (PyTorch forums: "multiple losses: backward on each or on the sum?" — the
first answer the user found said to retain the graph). Every extra ``backward`` walks the whole shared
encoder again. The fix: add the head losses and call ``backward`` once; the accumulated gradients are the
same."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_FEAT, HIDDEN, BATCH, STEPS = 256, 1024, 256, 40


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(N_FEAT, HIDDEN), nn.ReLU(),
            nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
            nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
        )

    def forward(self, x):
        return self.net(x)


encoder = Encoder()
heads = nn.ModuleDict({
    "churn": nn.Linear(HIDDEN, 2),
    "segment": nn.Linear(HIDDEN, 8),
    "spend": nn.Linear(HIDDEN, 1),
})
params = list(encoder.parameters()) + list(heads.parameters())
opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)

x_all = torch.randn(STEPS, BATCH, N_FEAT)
y_churn = torch.randint(0, 2, (STEPS, BATCH))
y_segment = torch.randint(0, 8, (STEPS, BATCH))
y_spend = torch.randn(STEPS, BATCH, 1)


def train():
    history = []
    for step in range(STEPS):
        opt.zero_grad()
        z = encoder(x_all[step])
        losses = {
            "churn": F.cross_entropy(heads["churn"](z), y_churn[step]),
            "segment": F.cross_entropy(heads["segment"](z), y_segment[step]),
            "spend": F.mse_loss(heads["spend"](z), y_spend[step]),
        }
        for name, loss in losses.items():
            loss.backward(retain_graph=True)
        opt.step()
        history.append(sum(l.item() for l in losses.values()))
    return torch.tensor(history)


if __name__ == "__main__":
    result = train()
