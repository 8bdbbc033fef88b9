"""MLP inference with a hand-written leaky activation done by boolean-mask assignment `h[h < 0] *= slope`
(nonzero + gather + scatter per layer) instead of one `leaky_relu` (StackOverflow: "is x[x < 0] *= a slower
than torch.where?")."""
PLANTED = ("hotspot", "fusion", "memory")
TOL = 1e-5
import torch

torch.manual_seed(0)
BATCH, WIDTH, LAYERS, N_BATCHES, SLOPE = 256, 384, 4, 60, 0.01
layers = [torch.nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)]
data = torch.randn(N_BATCHES, BATCH, WIDTH)


def forward(x):
    h = x
    for lin in layers:
        h = lin(h)
        h[h < 0] *= SLOPE
    return h.mean(1)


def main():
    with torch.no_grad():
        return torch.cat([forward(data[b]) for b in range(N_BATCHES)])


if __name__ == "__main__":
    result = main()
