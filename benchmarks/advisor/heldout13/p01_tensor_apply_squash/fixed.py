"""Preprocess raw sensor readings with a dead-zone + signed-log squash, then fit a small MLP regressor on
them for a few epochs."""
import torch

torch.manual_seed(0)
N_SAMPLES, N_FEATURES = 4_000, 200
DEAD_ZONE = 0.05

raw = torch.randn(N_SAMPLES, N_FEATURES) * torch.linspace(0.1, 30.0, N_FEATURES)
true_w = torch.randn(N_FEATURES, 1) / N_FEATURES ** 0.5


def preprocess(x):
    """Readings inside the dead zone are noise; outside it, compress the dynamic range."""
    a = x.abs()
    squashed = torch.sign(x) * torch.log1p((a - DEAD_ZONE).clamp_min(0.0))
    return torch.where(a < DEAD_ZONE, torch.zeros_like(x), squashed)


def train(features, target, epochs=16, batch=256):
    model = torch.nn.Sequential(
        torch.nn.Linear(N_FEATURES, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    for _ in range(epochs):
        perm = torch.randperm(features.shape[0], generator=g)
        for i in range(0, features.shape[0], batch):
            idx = perm[i:i + batch]
            loss = torch.nn.functional.mse_loss(model(features[idx]), target[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        return model(features[:512]).squeeze(1)


def main():
    feats = preprocess(raw)
    target = feats @ true_w + 0.1 * torch.randn(N_SAMPLES, 1, generator=torch.Generator().manual_seed(2))
    return train(feats, target)


if __name__ == "__main__":
    result = main()
