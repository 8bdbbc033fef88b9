import torch
import torch.nn.functional as F

torch.manual_seed(0)
N_IMG, ANCHORS, C, BETA = 60, 4096, 32, 1.0 / 9
feats = [torch.randn(ANCHORS, C) for _ in range(N_IMG)]
targets = [torch.randn(ANCHORS, 4) * 0.2 for _ in range(N_IMG)]
head = torch.nn.Linear(C, 4)
opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)


def smooth_l1(pred, target, beta):
    return F.smooth_l1_loss(pred, target, reduction="sum", beta=beta) / pred.shape[0]


def main():
    losses = []
    for epoch in range(16):
        for x, y in zip(feats, targets):
            loss = smooth_l1(head(x), y, BETA)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return torch.cat([torch.stack(losses), head.weight.detach().flatten()])


if __name__ == "__main__":
    result = main()
