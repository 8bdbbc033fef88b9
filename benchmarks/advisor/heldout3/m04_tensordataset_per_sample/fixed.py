import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

torch.manual_seed(0)
N, D = 16_000, 32
X = torch.randn(N, D)
Y = X[:, :4].sum(1, keepdim=True) + 0.1 * torch.randn(N, 1)


def main():
    model = torch.nn.Sequential(torch.nn.Linear(D, 128), torch.nn.Tanh(), torch.nn.Linear(128, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    ds = TensorDataset(X, Y)
    # one __getitem__ per batch (a list of indices), no per-sample collate
    sampler = BatchSampler(RandomSampler(ds, generator=g), batch_size=128, drop_last=False)
    loader = DataLoader(ds, sampler=sampler, batch_size=None, generator=g)
    log = []
    for epoch in range(3):
        running = torch.zeros(())
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.detach()
        log.append(running / len(loader))
    return torch.stack(log)


if __name__ == "__main__":
    result = main()
