"""A GRU written from scratch and stepped through time in a Python loop ("RNN from scratch" tutorials;
PyTorch forums: "my custom GRU loop is 5x slower than nn.GRU"): per time step a dozen small matmul, chunk
and gate ops on a batch of 8, including an input projection that could be done for all steps at once."""
PLANTED = ("launch_overhead", "host_bound", "fusion")
TOL = 1e-4
import torch

torch.manual_seed(0)
H = 128
ref = torch.nn.GRU(64, H)  # only to draw the weights
w_ih, w_hh = ref.weight_ih_l0.detach(), ref.weight_hh_l0.detach()
b_ih, b_hh = ref.bias_ih_l0.detach(), ref.bias_hh_l0.detach()
seqs = torch.randn(32, 200, 8, 64)  # 32 batches of (time, batch, features)


def gru_step(x, h):
    gi = x @ w_ih.T + b_ih
    gh = h @ w_hh.T + b_hh
    i_r, i_z, i_n = gi.chunk(3, dim=1)
    h_r, h_z, h_n = gh.chunk(3, dim=1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def main():
    total = torch.zeros(8, H)
    with torch.no_grad():
        for x in seqs:
            h = torch.zeros(8, H)
            for t in range(x.shape[0]):
                h = gru_step(x[t], h)
            total += h
    return total


if __name__ == "__main__":
    result = main()
