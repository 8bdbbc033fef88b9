"""Scores a stream of feature batches with a bagged ensemble of 48 small MLP regressors kept in an
nn.ModuleList and called one after the other (PyTorch forum and the model-ensembling tutorial: "my
ensemble of tiny networks is slow on CPU; stack the weights and run them as one batched matmul").

Each member is a few hundred FLOPs per row, so the loop spends its time dispatching small ops."""
PLANTED = ("launch_overhead", "host_bound", "utilization", "fusion")
TOL = 1e-4
import torch

torch.manual_seed(0)
E, D, H, B, BATCHES = 48, 16, 32, 128, 400

members = torch.nn.ModuleList(
    torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.Tanh(), torch.nn.Linear(H, 1)) for _ in range(E))
members.eval()
stream = torch.randn(BATCHES, B, D)


def main():
    out = []
    with torch.no_grad():
        for xb in stream:
            preds = torch.stack([m(xb) for m in members])
            out.append(preds.mean(0).squeeze(1))
    return torch.cat(out)


if __name__ == "__main__":
    result = main()
