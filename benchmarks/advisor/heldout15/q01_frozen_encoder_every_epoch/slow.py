"""Linear probe trained on a frozen, pretrained MLP encoder over a fixed in-memory dataset. Planted: the frozen
encoder is run again on every minibatch of every epoch although its features never change; they are needed
only once. Modelled on a PyTorch forums thread ("linear evaluation is as slow as fine-tuning, can I cache
the backbone features?")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch
from torch import nn

torch.manual_seed(0)
N, D_IN, N_CLS = 4096, 256, 10
X = torch.randn(N, D_IN)
y = torch.randint(0, N_CLS, (N,))

encoder = nn.Sequential(
    nn.Linear(D_IN, 768), nn.GELU(),
    nn.Linear(768, 768), nn.GELU(),
    nn.Linear(768, 384), nn.GELU(),
)
encoder.eval()
for p in encoder.parameters():
    p.requires_grad_(False)
probe = nn.Linear(384, N_CLS)
BATCH, EPOCHS = 256, 8


def main():
    opt = torch.optim.SGD(probe.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    losses = []
    for epoch in range(EPOCHS):
        order = torch.randperm(N, generator=g)
        total = 0.0
        for i in range(0, N, BATCH):
            idx = order[i:i + BATCH]
            with torch.no_grad():
                feats = encoder(X[idx])
            loss = nn.functional.cross_entropy(probe(feats), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach() * idx.numel()
        losses.append(total / N)
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
