import torch

torch.manual_seed(0)
SCENES, OBJECTS, DIM, HIDDEN, BATCH = 384, 40, 96, 64, 128

scenes = torch.randn(SCENES, OBJECTS, DIM)

g1 = torch.nn.Linear(2 * DIM, HIDDEN)
g2 = torch.nn.Linear(HIDDEN, HIDDEN)
f = torch.nn.Sequential(torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 4))


def pair_hidden(x):
    d = x.shape[-1]
    left = x @ g1.weight[:, :d].T + g1.bias
    right = x @ g1.weight[:, d:].T
    return torch.relu(left[:, :, None, :] + right[:, None, :, :])


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
