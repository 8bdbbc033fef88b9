"""Training an MLP on an in-memory tabular data set through a ``DataLoader`` whose ``Dataset`` returns one
row at a time (a dict of a feature tensor and a label): for every batch the loader calls ``__getitem__``
256 times and ``default_collate`` stacks 256 tiny tensors per field (PyTorch forums / StackOverflow:
"DataLoader is the bottleneck for tabular data, GPU/CPU idle"). The fix: a ``BatchSampler`` passed as
the sampler with ``batch_size=None``, so ``__getitem__`` slices a whole batch at once."""
PLANTED = ("input_pipeline", "host_bound")
TOL = 1e-4
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
N, F, BATCH = 24_000, 40, 256
features = torch.randn(N, F)
weights_true = torch.randn(F)
labels = (features @ weights_true + 0.3 * torch.randn(N) > 0).float()
cont = features[:, :30]
cats = (features[:, 30:] * 3).long().clamp(-5, 5) + 5


class Rows(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return {"cont": cont[i], "cats": cats[i], "label": labels[i]}


def main():
    torch.manual_seed(1)
    emb = torch.nn.Embedding(11, 4)
    net = torch.nn.Sequential(torch.nn.Linear(30 + 10 * 4, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
    params = list(emb.parameters()) + list(net.parameters())
    opt = torch.optim.SGD(params, lr=0.05)
    loader = DataLoader(Rows(), batch_size=BATCH, shuffle=False)
    total = 0.0
    for epoch in range(2):
        for batch in loader:
            x = torch.cat([batch["cont"], emb(batch["cats"]).flatten(1)], 1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x).squeeze(1), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
    return torch.stack([total] + [p.detach().sum() for p in params])


if __name__ == "__main__":
    result = main()
