"""Multi-label loss written by hand from the formula: sigmoid, two logs, the (1 - y) and (1 - p) terms and
a weighted sum, each a separate pass over the (batch x labels) tensor and again in backward, where
F.binary_cross_entropy_with_logits does it in one fused, stable kernel (StackOverflow / PyTorch forums:
"my BCE gives nan / is slow, use BCEWithLogitsLoss")."""
PLANTED = ("fusion",)
TOL = 1e-3
import torch

torch.manual_seed(0)
B, F_IN, L = 1024, 96, 3000
FEATS = torch.randn(6, B, F_IN)
TAG_IDS = torch.randint(0, L, (6, B, 60))                     # each sample's tag ids
TAGS = torch.zeros(6, B, L).scatter_(2, TAG_IDS, 1.0)         # multi-hot targets
POS_WEIGHT = torch.full((L,), 4.0)


def bce_loss(logits, y):
    p = torch.sigmoid(logits)
    eps = 1e-7
    loss = -(POS_WEIGHT * y * torch.log(p + eps) + (1 - y) * torch.log(1 - p + eps))
    return loss.mean()


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
