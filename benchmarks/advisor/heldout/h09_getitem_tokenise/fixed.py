import random

import torch
from torch import nn

random.seed(0)
WORDS = ["w%d" % i for i in range(500)]
TEXTS = [" ".join(random.choice(WORDS) for _ in range(60)) for _ in range(1200)]
VOCAB = {w: i for i, w in enumerate(WORDS)}


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.EmbeddingBag(500, 32), nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ids = torch.tensor([([VOCAB.get(t.lower().strip(".,"), 0) for t in s.split()] + [0] * 64)[:64] for s in TEXTS])
    labels = torch.arange(len(TEXTS)) % 2
    for _ in range(3):
        for s in range(0, len(TEXTS), 40):
            loss = nn.functional.cross_entropy(model(ids[s:s + 40]), labels[s:s + 40])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model[1].weight.detach()


if __name__ == "__main__":
    result = main()
