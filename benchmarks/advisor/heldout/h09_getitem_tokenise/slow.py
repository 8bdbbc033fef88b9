"""Text tokenised in Dataset.__getitem__ on every access with num_workers=0 (forums: "data loading is the
bottleneck"): split, vocabulary lookups and padding per sample, per epoch."""
PLANTED = ("input_pipeline", "host_bound")
TOL = 1e-4
import random

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

random.seed(0)
WORDS = ["w%d" % i for i in range(500)]
TEXTS = [" ".join(random.choice(WORDS) for _ in range(60)) for _ in range(1200)]
VOCAB = {w: i for i, w in enumerate(WORDS)}


class Texts(Dataset):
    def __len__(self):
        return len(TEXTS)

    def __getitem__(self, i):
        ids = [VOCAB.get(tok.lower().strip(".,"), 0) for tok in TEXTS[i].split()]
        ids = (ids + [0] * 64)[:64]
        return torch.tensor(ids), i % 2


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.EmbeddingBag(500, 32), nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        for ids, y in DataLoader(Texts(), batch_size=40, num_workers=0):
            loss = nn.functional.cross_entropy(model(ids), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model[1].weight.detach()


if __name__ == "__main__":
    result = main()
