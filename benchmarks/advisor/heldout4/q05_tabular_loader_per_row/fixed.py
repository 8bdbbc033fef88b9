import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, SequentialSampler

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

    def __getitem__(self, idx):
        idx = torch.as_tensor(idx)
        return {"cont": cont[idx], "cats": cats[idx], "label": labels[idx]}


def main():
    torch.manual_seed(1)
    emb = torch.nn.Embedding(11, 4)
    net = torch.nn.Sequential(torch.nn.Linear(30 + 10 * 4, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
    params = list(emb.parameters()) + list(net.parameters())
    opt = torch.optim.SGD(params, lr=0.05)
    sampler = BatchSampler(SequentialSampler(range(N)), batch_size=BATCH, drop_last=False)
    loader = DataLoader(Rows(), sampler=sampler, batch_size=None)
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
