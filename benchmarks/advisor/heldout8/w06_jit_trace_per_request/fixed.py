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
        self.runner = None

    def handle(self, batch):
        with torch.no_grad():
            if self.runner is None:
                self.runner = torch.jit.trace(self.model, batch)
            return self.runner(batch).softmax(dim=1)


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
