"""A training loop that registers a forward hook (a dead-ReLU monitor) on every step and never removes the
handle, so the hooks pile up and each forward pass runs all of them (PyTorch forums thread: "training gets
slower every iteration, I only added a hook to log activations")."""
PLANTED = ("redundant", "host_bound", "launch_overhead")
TOL = 1e-5
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
    for step in range(110):
        idx = torch.arange(step * 256, step * 256 + 256) % X.shape[0]
        model[3].register_forward_hook(monitor)
        loss = loss_fn(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append([loss.item(), dead_fraction["relu2"]])
    return torch.tensor(history)


if __name__ == "__main__":
    result = main()
