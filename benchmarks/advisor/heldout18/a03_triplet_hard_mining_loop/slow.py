"""Trains a small embedding MLP with a batch-hard triplet loss whose hardest positive and negative are mined by
a Python loop over the anchors (PyTorch forums: "triplet loss with online hard mining is the bottleneck").
Each anchor costs a handful of tiny tensor ops, forward and backward; one masked max/min over the distance
matrix mines every anchor at once."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
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
    losses = []
    for i in range(emb.shape[0]):
        pos_mask = labels == labels[i]
        pos_mask[i] = False
        neg_mask = labels != labels[i]
        hardest_pos = dist[i][pos_mask].max()
        hardest_neg = dist[i][neg_mask].min()
        losses.append(F.relu(hardest_pos - hardest_neg + margin))
    return torch.stack(losses).mean()


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
