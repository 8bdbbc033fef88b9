"""Inference of a 2-layer LSTM tagger over fully known input sequences, calling nn.LSTM once per time step in a
Python loop with the (h, c) state carried by hand instead of once on the whole sequence.
Modelled on forum threads like "LSTM inference is slow when I loop over time steps"."""
PLANTED = ("launch_overhead", "host_bound")
TOL = 1e-4
import torch

torch.manual_seed(0)
T, B, D, H = 300, 16, 32, 64
lstm = torch.nn.LSTM(D, H, num_layers=2)
head = torch.nn.Linear(H, 10)
seqs = [torch.randn(T, B, D) for _ in range(6)]


def run(x):
    h = torch.zeros(2, B, H)
    c = torch.zeros(2, B, H)
    outs = []
    for t in range(x.shape[0]):
        o, (h, c) = lstm(x[t:t + 1], (h, c))
        outs.append(o)
    return torch.cat(outs)


def main():
    with torch.no_grad():
        return torch.stack([head(run(x)).softmax(-1).mean(dim=(0, 1)) for x in seqs])


if __name__ == "__main__":
    result = main()
