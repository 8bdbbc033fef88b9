import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, F_IN, L = 1024, 96, 3000
FEATS = torch.randn(6, B, F_IN)
TAG_IDS = torch.randint(0, L, (6, B, 60))                     # each sample's tag ids
TAGS = torch.zeros(6, B, L).scatter_(2, TAG_IDS, 1.0)         # multi-hot targets
POS_WEIGHT = torch.full((L,), 4.0)


def bce_loss(logits, y):
    return F.binary_cross_entropy_with_logits(logits, y, pos_weight=POS_WEIGHT)


def main():
    model = torch.nn.Sequential(torch.nn.Linear(F_IN, 48), torch.nn.ReLU(), torch.nn.Linear(48, L))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    log = []
    for step in range(FEATS.shape[0]):
        loss = bce_loss(model(FEATS[step]), TAGS[step])
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(loss.detach())
    return torch.stack(log)


if __name__ == "__main__":
    result = main()
