import torch

torch.manual_seed(0)
X = torch.randn(4096, 64)
Y = (X[:, :8].sum(1, keepdim=True) > 0).float()
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = torch.nn.BCEWithLogitsLoss()
dead_fraction = {}


def monitor(module, inputs, output):
    dead_fraction["relu2"] = (output == 0).float().mean().item()


def main():
    history = []
    model[3].register_forward_hook(monitor)
    for step in range(110):
        idx = torch.arange(step * 256, step * 256 + 256) % X.shape[0]
        loss = loss_fn(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append([loss.item(), dead_fraction["relu2"]])
    return torch.tensor(history)


if __name__ == "__main__":
    result = main()
