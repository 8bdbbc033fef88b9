import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, D, C = 4096, 64, 10
X = torch.randn(N, D)
Y = (X[:, :C] + 0.5 * torch.randn(N, C)).argmax(1)
W = torch.rand(N) + 0.5


def main():
    model = torch.nn.Sequential(torch.nn.Linear(D, 256), torch.nn.GELU(), torch.nn.Linear(256, 256),
                                torch.nn.GELU(), torch.nn.Linear(256, C))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    bs = 128
    log = []
    for epoch in range(2):
        for start in range(0, N, bs):
            x, y, w = X[start:start + bs], Y[start:start + bs], W[start:start + bs]
            logits = model(x)
            loss = (w * F.cross_entropy(logits, y, reduction="none")).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            log.append(loss.detach())
    return torch.stack(log)


if __name__ == "__main__":
    result = main()
