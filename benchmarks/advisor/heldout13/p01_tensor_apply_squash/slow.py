"""Preprocess raw sensor readings with a dead-zone + signed-log squash, then fit a small MLP regressor on
them for a few epochs (modelled on a PyTorch forum thread about a tabular/sensor pipeline whose
preprocessing step "takes longer than training")."""
PLANTED = ("host_bound", "hotspot", "input_pipeline")
TOL = 1e-3
import math

import torch

torch.manual_seed(0)
N_SAMPLES, N_FEATURES = 4_000, 200
DEAD_ZONE = 0.05

raw = torch.randn(N_SAMPLES, N_FEATURES) * torch.linspace(0.1, 30.0, N_FEATURES)
true_w = torch.randn(N_FEATURES, 1) / N_FEATURES ** 0.5


def squash(v):
    """Readings inside the dead zone are noise; outside it, compress the dynamic range."""
    a = abs(v)
    if a < DEAD_ZONE:
        return 0.0
    return math.copysign(math.log1p(a - DEAD_ZONE), v)


def preprocess(x):
    x = x.clone()
    x.apply_(squash)
    return x


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
