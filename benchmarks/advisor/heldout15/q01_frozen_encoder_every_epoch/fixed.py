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
    with torch.no_grad():  # the encoder is frozen: its features are computed once
        feats_all = torch.cat([encoder(X[i:i + BATCH]) for i in range(0, N, BATCH)])
    losses = []
    for epoch in range(EPOCHS):
        order = torch.randperm(N, generator=g)
        total = 0.0
        for i in range(0, N, BATCH):
            idx = order[i:i + BATCH]
            loss = nn.functional.cross_entropy(probe(feats_all[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach() * idx.numel()
        losses.append(total / N)
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
