"""Trains a small MLP classifier on mini-batches sliced from one feature tensor that was created with
requires_grad=True, as in an autograd tutorial it was copied from (PyTorch forum threads: "why does every
backward fill a gradient the size of my whole data set").

The features never need a gradient: each backward still runs the first layer's input gradient and
scatters it into a zero-filled gradient as large as the full feature tensor, then accumulates it there."""
PLANTED = ("redundant", "memory")
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, D, C, B = 4096, 512, 10, 512
X = torch.randn(N, D, requires_grad=True)
W_true = torch.randn(D, C)
y = (X.detach() @ W_true).argmax(1)

model = torch.nn.Sequential(torch.nn.Linear(D, 256), torch.nn.ReLU(), torch.nn.Linear(256, C))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def main():
    for _epoch in range(16):
        for i in range(0, N, B):
            xb, yb = X[i:i + B], y[i:i + B]
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        return model(X[:2048].detach()).softmax(1).mean(0)


if __name__ == "__main__":
    result = main()
