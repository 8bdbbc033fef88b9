import torch

torch.manual_seed(0)
DEPTH, WIDTH, STEPS, LR = 30, 48, 90, 1e-3
layers = []
for _ in range(DEPTH):
    layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()]
model = torch.nn.Sequential(torch.nn.Linear(16, WIDTH), *layers, torch.nn.Linear(WIDTH, 1))
X = torch.randn(512, 16)
y = (X[:, :4].sum(1, keepdim=True)).sin()


def main():
    opt = torch.optim.Adam(model.parameters(), lr=LR, fused=True)
    losses = []
    for step in range(STEPS):
        idx = torch.arange(step * 64, step * 64 + 64) % X.shape[0]
        loss = torch.nn.functional.mse_loss(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses + [p.detach().sum() for p in model.parameters()][-6:])


if __name__ == "__main__":
    result = main()
