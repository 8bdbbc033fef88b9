"""Speech-model evaluation greedily decodes CTC outputs (argmax, collapse repeats, drop blanks) with a Python loop
over every frame that reads each label with `.item()` (forums: "CTC decoding is slower than the model itself")."""
PLANTED = ("host_bound", "sync", "launch_overhead")
TOL = 1e-9
import torch

torch.manual_seed(0)
torch.set_grad_enabled(False)
N_BATCH, B, T, F, V = 240, 2, 400, 80, 32
model = torch.nn.Sequential(torch.nn.Linear(F, 128), torch.nn.ReLU(), torch.nn.Linear(128, V))
features = [torch.randn(B, T, F) for _ in range(N_BATCH)]


def greedy_decode(logits):
    best = logits.argmax(-1)
    out = []
    for b in range(best.shape[0]):
        seq, prev = [], -1
        for t in range(best.shape[1]):
            c = best[b, t].item()
            if c != prev and c != 0:
                seq.append(c)
            prev = c
        out.append(seq)
    return out


def main():
    stats = []
    for x in features:
        for seq in greedy_decode(model(x)):
            stats += [len(seq), sum(seq), sum(i * c for i, c in enumerate(seq)) % 100003]
    return torch.tensor(stats, dtype=torch.float64)


if __name__ == "__main__":
    result = main()
