"""An orthogonal RNN whose recurrent weight carries an orthogonal parametrization, stepped through time in a
Python loop (modelled on a PyTorch forums thread: "training got 10x slower after switching to
torch.nn.utils.parametrizations.orthogonal").

Every access to ``self.recurrent.weight`` inside the time loop recomputes the parametrization (a matrix
exponential of the hidden-by-hidden matrix) and records it for backward; it is the same matrix for the whole
sequence.
"""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4

import torch
from torch import nn
from torch.nn.utils import parametrizations

torch.manual_seed(0)

SEQ_LEN = 30
BATCH = 16
N_IN = 8
HIDDEN = 96
STEPS = 18


class OrthoRNN(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        self.inp = nn.Linear(n_in, hidden)
        self.recurrent = nn.Linear(hidden, hidden, bias=False)
        parametrizations.orthogonal(self.recurrent)
        self.head = nn.Linear(hidden, n_out)

    def forward(self, x):
        # x: (seq, batch, n_in)
        h = x.new_zeros(x.shape[1], self.recurrent.weight.shape[0])
        u = self.inp(x)
        for t in range(x.shape[0]):
            h = torch.tanh(u[t] + h @ self.recurrent.weight.T)
        return self.head(h)


def make_batch(gen):
    x = torch.randn(SEQ_LEN, BATCH, N_IN, generator=gen)
    # copy-memory style target: the mean of the first few inputs, recalled at the end
    y = x[:4].mean(0)[:, :2]
    return x, y


def train():
    model = OrthoRNN(N_IN, HIDDEN, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    losses = []
    for step in range(STEPS):
        x, y = make_batch(gen)
        pred = model(x)
        loss = nn.functional.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        w = model.recurrent.weight.clone()
    return torch.cat([torch.tensor(losses), w.flatten()[:256], model.head.weight.detach().flatten()])


if __name__ == "__main__":
    result = train()
