"""Fine-tunes a wide MLP with small batches and L2 regularisation written into the loss as a Python sum
over all parameters (StackOverflow and PyTorch forum answers: "use the optimizer's weight_decay instead of
adding the squared norm of every parameter to the loss").

The penalty builds a forward and a backward over every weight each step, extra passes over the
parameters that the optimizer's weight decay folds into its own update."""
PLANTED = ("redundant", "fusion", "hotspot")
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)
D, H, C, B, STEPS, LAM = 512, 1024, 10, 32, 60, 1e-3

model = torch.nn.Sequential(
    torch.nn.Linear(D, H), torch.nn.ReLU(), torch.nn.Linear(H, H), torch.nn.ReLU(),
    torch.nn.Linear(H, H), torch.nn.ReLU(), torch.nn.Linear(H, C))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
X = torch.randn(STEPS, B, D)
Y = torch.randint(0, C, (STEPS, B))


def main():
    for xb, yb in zip(X, Y):
        loss = F.cross_entropy(model(xb), yb)
        loss = loss + LAM / 2 * sum(p.pow(2).sum() for p in model.parameters())
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return model(X[0]).softmax(1)


if __name__ == "__main__":
    result = main()
