"""The validation step fills its confusion matrix one sample at a time, indexing a tensor with 0-d tensors
from ``zip(targets, preds)`` in a Python loop (PyTorch forums: "how to compute a confusion matrix
efficiently"; the answer is one ``bincount``)."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-6
import torch
from torch import nn

N_CLASSES = 12
N_FEATURES = 64
N_VAL = 60000
BATCH = 500


def build_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(N_FEATURES, 256), nn.ReLU(), nn.Linear(256, N_CLASSES)).eval()


def val_loader():
    g = torch.Generator().manual_seed(1)
    centres = 2.0 * torch.randn(N_CLASSES, N_FEATURES, generator=g)
    for _ in range(N_VAL // BATCH):
        y = torch.randint(0, N_CLASSES, (BATCH,), generator=g)
        x = centres[y] + torch.randn(BATCH, N_FEATURES, generator=g)
        yield x, y


def update_confusion(cm, targets, preds):
    for t, p in zip(targets, preds):
        cm[t, p] += 1


def validate(model):
    cm = torch.zeros(N_CLASSES, N_CLASSES, dtype=torch.long)
    with torch.no_grad():
        for x, y in val_loader():
            preds = model(x).argmax(dim=1)
            update_confusion(cm, y, preds)
    recall = cm.diag().float() / cm.sum(dim=1).clamp(min=1)
    precision = cm.diag().float() / cm.sum(dim=0).clamp(min=1)
    return torch.cat([cm.flatten().float(), recall, precision])


def main():
    return validate(build_model())


if __name__ == "__main__":
    result = main()
