import random

import torch

random.seed(0)
torch.manual_seed(0)
records = []
for i in range(12000):
    feats = [random.gauss(0.0, 1.0) for _ in range(48)]
    records.append({"id": f"rec-{i}", "features": feats, "label": int(sum(feats[:6]) > 0),
                    "meta": {"source": random.choice(["web", "app", "api"]), "tags": ["raw", "v2"]}})
model = torch.nn.Sequential(torch.nn.Linear(48, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
LOG_EVERY = 80


def main():
    losses, logged = [], []
    for step in range(160):
        start = (step * 128) % len(records)
        batch = records[start:start + 128]
        x = torch.tensor([r["features"] for r in batch])
        y = torch.tensor([r["label"] for r in batch])
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if (step + 1) % LOG_EVERY == 0:
            logged.append(sum(losses[-LOG_EVERY:]) / LOG_EVERY)
    return torch.tensor(losses + logged)


if __name__ == "__main__":
    result = main()
