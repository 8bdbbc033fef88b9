import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
CLASSES, PER_CLASS, IN_DIM, EMB_DIM, STEPS = 32, 8, 128, 64, 20
centres = torch.randn(100, IN_DIM)


def pk_batch(gen):
    labels = torch.randperm(100, generator=gen)[:CLASSES].repeat_interleave(PER_CLASS)
    feats = centres[labels] + 0.8 * torch.randn(labels.shape[0], IN_DIM, generator=gen)
    return feats, labels


def batch_hard_triplet_loss(emb, labels, margin=0.3):
    dist = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(labels.shape[0], dtype=torch.bool)
    hardest_pos = dist.masked_fill(~same | eye, float("-inf")).amax(dim=1)
    hardest_neg = dist.masked_fill(same, float("inf")).amin(dim=1)
    return F.relu(hardest_pos - hardest_neg + margin).mean()


def train():
    model = nn.Sequential(nn.Linear(IN_DIM, 256), nn.ReLU(), nn.Linear(256, EMB_DIM))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(STEPS):
        feats, labels = pk_batch(gen)
        emb = F.normalize(model(feats), dim=1)
        loss = batch_hard_triplet_loss(emb, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.cat([torch.stack(losses), model[2].weight.detach().flatten()[:256]])


if __name__ == "__main__":
    result = train()
