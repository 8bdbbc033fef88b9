import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

N_WINDOWS = 384
WINDOW = 64
CHANNELS = 6


class SensorWindows(Dataset):
    def __init__(self, signals, labels, window=WINDOW):
        self.signals = signals
        self.labels = labels
        self.window = window
        self.mean = signals.mean(dim=0)
        self.std = signals.std(dim=0)

    def __len__(self):
        return self.signals.shape[0] // self.window

    def __getitem__(self, i):
        start = i * self.window
        x = self.signals[start:start + self.window]
        x = (x - self.mean) / (self.std + 1e-6)
        return x.T.contiguous(), self.labels[i]


def make_recording():
    t = torch.arange(N_WINDOWS * WINDOW, dtype=torch.float32)
    freqs = torch.linspace(0.01, 0.2, CHANNELS)
    signals = torch.sin(t[:, None] * freqs[None, :]) * 3.0 + 0.5 * torch.randn(t.shape[0], CHANNELS) + 10.0
    labels = torch.randint(0, 4, (N_WINDOWS,))
    return signals, labels


def build_model():
    return nn.Sequential(
        nn.Conv1d(CHANNELS, 64, kernel_size=7, padding=3), nn.ReLU(),
        nn.Conv1d(64, 128, kernel_size=7, padding=3), nn.ReLU(),
        nn.Conv1d(128, 128, kernel_size=7, padding=3), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(128, 4),
    )


def train(model, loader, epochs=2):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return torch.stack(losses)


def main():
    signals, labels = make_recording()
    data = SensorWindows(signals, labels)
    loader = DataLoader(data, batch_size=64, shuffle=False)
    model = build_model()
    return train(model, loader)


if __name__ == "__main__":
    result = main()
