"""The training loop's accuracy helper runs the model a second time on the batch it has just run, instead
of reusing the logits the loss was computed from (code review: "you call model(x) twice per step")."""
PLANTED = ("redundant",)
TOL = 1e-4
import torch
from torch import nn

N_FEATURES = 256
N_CLASSES = 10
BATCH = 128
STEPS = 120


def make_data():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(STEPS * BATCH, N_FEATURES, generator=g)
    w = torch.randn(N_FEATURES, N_CLASSES, generator=g)
    y = (x @ w).argmax(dim=1)
    return x, y


def build_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(N_FEATURES, 512), nn.ReLU(),
        nn.Linear(512, 512), nn.ReLU(),
        nn.Linear(512, N_CLASSES),
    )


def batch_accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean()


def train(model, x_all, y_all):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for step in range(STEPS):
        x = x_all[step * BATCH:(step + 1) * BATCH]
        y = y_all[step * BATCH:(step + 1) * BATCH]
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        acc = batch_accuracy(model, x, y)
        loss.backward()
        opt.step()
        history.append(torch.stack([loss.detach(), acc]))
    return torch.stack(history)


def main():
    x, y = make_data()
    model = build_model()
    return train(model, x, y)


if __name__ == "__main__":
    result = main()
