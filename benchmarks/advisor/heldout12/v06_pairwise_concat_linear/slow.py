"""A relation network that builds every (i, j) pair of object features by expanding and concatenating them
into a (B, N, N, 2d) tensor before its first linear layer (PyTorch forums / GitHub issues on relation and
edge networks: "pairwise concat runs out of memory and is slow"); the first layer is linear, so it can be
applied to the N objects once per half of its weight and the two results broadcast-added."""
PLANTED = ("memory", "redundant", "hotspot")
TOL = 1e-4
import torch

torch.manual_seed(0)
SCENES, OBJECTS, DIM, HIDDEN, BATCH = 384, 40, 96, 64, 128

scenes = torch.randn(SCENES, OBJECTS, DIM)

g1 = torch.nn.Linear(2 * DIM, HIDDEN)
g2 = torch.nn.Linear(HIDDEN, HIDDEN)
f = torch.nn.Sequential(torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 4))


def pair_hidden(x):
    b, n, d = x.shape
    left = x[:, :, None, :].expand(b, n, n, d)
    right = x[:, None, :, :].expand(b, n, n, d)
    return torch.relu(g1(torch.cat([left, right], dim=-1)))


def relation_net(x):
    h = torch.relu(g2(pair_hidden(x)))
    return f(h.sum(dim=(1, 2)))


def main():
    outs = []
    with torch.no_grad():
        for batch in scenes.split(BATCH):
            outs.append(relation_net(batch))
    return torch.cat(outs)


if __name__ == "__main__":
    result = main()
