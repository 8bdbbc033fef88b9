"""A small mixture-of-experts layer routing tokens one at a time (modelled on a GitHub issue on a hobby MoE
implementation: "top-1 routing is very slow on CPU, most time spent in Python").

The router picks an expert per token, then the forward loops over the tokens and calls that token's expert
MLP on a single row; the tokens of one expert could be gathered and sent through it together.
"""
PLANTED = ("launch_overhead", "host_bound", "utilization")
TOL = 1e-4

import torch
from torch import nn

torch.manual_seed(0)

D_MODEL = 64
D_FF = 128
N_EXPERTS = 8
TOKENS = 1024
N_BATCHES = 24


class Expert(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Top1MoE(nn.Module):
    def __init__(self, d_model, d_ff, n_experts):
        super().__init__()
        self.router = nn.Linear(d_model, n_experts)
        self.experts = nn.ModuleList(Expert(d_model, d_ff) for _ in range(n_experts))

    def forward(self, x):
        # x: (tokens, d_model)
        gates = torch.softmax(self.router(x), dim=-1)
        weight, choice = gates.max(dim=-1)
        out = torch.zeros_like(x)
        for i in range(x.shape[0]):
            e = int(choice[i])
            out[i] = weight[i] * self.experts[e](x[i])
        return out, gates


def load_balance_loss(gates):
    frac = gates.mean(0)
    return (frac * frac).sum() * gates.shape[1]


def run():
    layer = Top1MoE(D_MODEL, D_FF, N_EXPERTS).eval()
    gen = torch.Generator().manual_seed(3)
    outs, aux = [], []
    with torch.no_grad():
        for _ in range(N_BATCHES):
            tokens = torch.randn(TOKENS, D_MODEL, generator=gen)
            y, gates = layer(tokens)
            outs.append(y.pow(2).mean(1))
            aux.append(load_balance_loss(gates))
    return torch.cat([torch.cat(outs), torch.stack(aux)])


if __name__ == "__main__":
    result = run()
