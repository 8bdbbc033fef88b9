import torch
import torch.nn.functional as F

torch.manual_seed(0)
D, H, C, B, STEPS, LAM = 512, 1024, 10, 32, 60, 1e-3

model = torch.nn.Sequential(
    torch.nn.Linear(D, H), torch.nn.ReLU(), torch.nn.Linear(H, H), torch.nn.ReLU(),
    torch.nn.Linear(H, H), torch.nn.ReLU(), torch.nn.Linear(H, C))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=LAM)
X = torch.randn(STEPS, B, D)
Y = torch.randint(0, C, (STEPS, B))


def main():
    for xb, yb in zip(X, Y):
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return model(X[0]).softmax(1)


if __name__ == "__main__":
    result = main()
