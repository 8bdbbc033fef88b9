"""A small inference service wraps the model with ``torch.jit.trace`` inside its request handler, so every
request traces (and, with the default ``check_trace=True``, re-runs and compares) the model before using it
once (GitHub issue: "TorchScript inference slower than eager; trace is called per request")."""
PLANTED = ("compile", "redundant", "cold_start")
TOL = 1e-4
import torch
from torch import nn

N_REQUESTS = 10
BATCH = 64


class ScoreNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(4, 32, 5, padding=2), nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(8),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, 3))

    def forward(self, x):
        return self.head(self.features(x))


class Service:
    def __init__(self):
        torch.manual_seed(0)
        self.model = ScoreNet().eval()

    def handle(self, batch):
        with torch.no_grad():
            runner = torch.jit.trace(self.model, batch)
            return runner(batch).softmax(dim=1)


def requests():
    g = torch.Generator().manual_seed(1)
    for _ in range(N_REQUESTS):
        yield torch.randn(BATCH, 4, 256, generator=g)


def main():
    service = Service()
    scores = [service.handle(batch).mean(dim=0) for batch in requests()]
    return torch.stack(scores)


if __name__ == "__main__":
    result = main()
