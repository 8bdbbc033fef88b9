import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

CHANNELS, SIZE, BATCH, STEPS = 32, 32, 16, 20


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.bn1 = nn.GroupNorm(8, c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.bn2 = nn.GroupNorm(8, c)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(h)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, CHANNELS, 3, padding=1)
        self.blocks = nn.ModuleList(Block(CHANNELS) for _ in range(4))
        self.head = nn.Linear(CHANNELS, 10)

    def forward(self, x):
        h = F.relu(self.stem(x))
        for block in self.blocks:
            h = block(h)
        return self.head(h.mean(dim=(2, 3)))


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
images = torch.randn(STEPS, BATCH, 3, SIZE, SIZE)
labels = torch.randint(0, 10, (STEPS, BATCH))


def train():
    losses = []
    for step in range(STEPS):
        loss = F.cross_entropy(model(images[step]), labels[step])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return torch.tensor(losses)


if __name__ == "__main__":
    result = train()
