"""The whole (unchanging) training set re-standardised and its engineered features rebuilt inside
get_batch(), i.e. once per mini-batch, only to slice one batch out of the result (PyTorch forums /
StackOverflow: "preprocessing inside the training loop", "normalise once, not every step")."""
PLANTED = ("redundant",)
TOL = 1e-4
import torch

torch.manual_seed(0)
N, D = 4000, 24
RAW = torch.randn(N, D) * torch.linspace(0.5, 20.0, D) + torch.linspace(-3.0, 50.0, D)
TARGET = (RAW[:, :6] - RAW[:, :6].mean(0)).div(RAW[:, :6].std(0)).sum(1, keepdim=True).tanh()


def features(raw):
    x = (raw - raw.mean(0)) / raw.std(0)
    return torch.cat([x, x * x, torch.log1p(raw.abs())], 1)


def get_batch(start, bs):
    feats = features(RAW)
    return feats[start:start + bs], TARGET[start:start + bs]


def main():
    model = torch.nn.Sequential(torch.nn.Linear(3 * D, 384), torch.nn.ReLU(), torch.nn.Linear(384, 384),
                                torch.nn.ReLU(), torch.nn.Linear(384, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    bs = 64
    log = []
    for epoch in range(3):
        total = torch.zeros(())
        for start in range(0, N, bs):
            x, y = get_batch(start, bs)
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
        log.append(total)
    return torch.stack(log)


if __name__ == "__main__":
    result = main()
