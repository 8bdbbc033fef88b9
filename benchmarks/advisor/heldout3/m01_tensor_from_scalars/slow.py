"""Each training sample turned into a tensor with its own torch.tensor([...]) call on Python floats, then
torch.stack-ed into the batch (PyTorch forums: "building the batch from a list of rows is slower than the
model")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
import random

import torch

random.seed(0)
torch.manual_seed(0)
N_FEAT = 16
# rows as they come out of a csv reader / database cursor: tuples of Python floats and an int label
ROWS = [tuple(random.gauss(0.0, 1.0) for _ in range(N_FEAT)) for _ in range(12_000)]
LABELS = [int(sum(r[:4]) > 0) + 2 * int(r[5] > 0.3) for r in ROWS]


def main():
    model = torch.nn.Sequential(torch.nn.Linear(N_FEAT, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                torch.nn.ReLU(), torch.nn.Linear(128, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    bs = 128
    total = 0.0
    for epoch in range(2):
        for start in range(0, len(ROWS), bs):
            xs = [torch.tensor(r, dtype=torch.float32) for r in ROWS[start:start + bs]]
            ys = [torch.tensor(l) for l in LABELS[start:start + bs]]
            x = torch.stack(xs)
            y = torch.stack(ys)
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total += loss.detach()
    with torch.no_grad():
        probe = model(torch.ones(3, N_FEAT))
    return torch.cat([total.reshape(1), probe.flatten()])


if __name__ == "__main__":
    result = main()
