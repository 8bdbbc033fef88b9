import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Windows(Dataset):
    def __init__(self, series, width):
        self.series, self.width = series, width

    def __len__(self):
        return self.series.shape[0] - self.width

    def __getitem__(self, i):
        window = self.series[i:i + self.width]
        return (window - window.mean()) / (window.std() + 1e-6), self.series[i + self.width]


series = torch.cumsum(torch.randn(640 + 32), 0)
dataset = Windows(series, 32)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def main():
    epoch_loss = []
    loader = DataLoader(dataset, batch_size=128, shuffle=False, num_workers=2, persistent_workers=True)
    for epoch in range(12):
        total = 0.0
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x).squeeze(1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        epoch_loss.append(total)
    return torch.tensor(epoch_loss)


if __name__ == "__main__":
    result = main()
