import torch

torch.manual_seed(0)
D_IN, HIDDEN, N_CLASSES, SPARSITY = 256, 768, 20, 0.7


def magnitude_prune(w: torch.Tensor, sparsity: float) -> torch.Tensor:
    k = int(sparsity * w.numel())
    threshold = w.abs().flatten().kthvalue(k).values
    return torch.where(w.abs() > threshold, w, torch.zeros_like(w))


w_in = torch.randn(HIDDEN, D_IN) / D_IN ** 0.5
hidden = [magnitude_prune(torch.randn(HIDDEN, HIDDEN) / HIDDEN ** 0.5, SPARSITY) for _ in range(2)]
w_out = torch.randn(N_CLASSES, HIDDEN) / HIDDEN ** 0.5
inputs = torch.randn(768, D_IN)


def forward(x: torch.Tensor) -> torch.Tensor:
    h = torch.relu(x @ w_in.T)
    for w in hidden:  # 30 % dense: the dense kernel (zeros included) is the fast one
        h = torch.relu(h @ w.T)
    return torch.log_softmax(h @ w_out.T, dim=1)


def main():
    with torch.no_grad():
        outs = [forward(inputs[i:i + 128]) for i in range(0, inputs.shape[0], 128)]
    logp = torch.cat(outs)
    return torch.stack([logp.mean(0), logp.max(0).values, logp.std(0)])


if __name__ == "__main__":
    result = main()
