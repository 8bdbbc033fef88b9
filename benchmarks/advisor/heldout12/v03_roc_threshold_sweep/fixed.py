import torch

torch.manual_seed(0)
N_TRAIN, N_VAL, FEATURES, EPOCHS, BATCH = 20_000, 40_000, 40, 8, 512
THRESHOLDS = torch.linspace(0.0, 1.0, 401)

w_true = torch.randn(FEATURES)
X_train = torch.randn(N_TRAIN, FEATURES)
y_train = ((X_train @ w_true + 2.0 * torch.randn(N_TRAIN)) > 0).float()
X_val = torch.randn(N_VAL, FEATURES)
y_val = ((X_val @ w_true + 2.0 * torch.randn(N_VAL)) > 0).float()

model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def roc_auc(scores, labels):
    pos = labels.bool()
    pos_sorted, neg_sorted = scores[pos].sort().values, scores[~pos].sort().values
    n_pos, n_neg = pos_sorted.numel(), neg_sorted.numel()
    # scores >= t counted from the sorted scores: everything at or after the first index where t fits
    tp = n_pos - torch.searchsorted(pos_sorted, THRESHOLDS, side="left")
    fp = n_neg - torch.searchsorted(neg_sorted, THRESHOLDS, side="left")
    tpr, fpr = (tp / n_pos).double(), (fp / n_neg).double()
    return -torch.trapezoid(tpr, fpr)


def main():
    gen = torch.Generator().manual_seed(1)
    history = []
    for epoch in range(EPOCHS):
        model.train()
        for idx in torch.randperm(N_TRAIN, generator=gen).split(BATCH):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model(X_train[idx]).squeeze(1), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            scores = torch.sigmoid(model(X_val).squeeze(1))
        history.append(roc_auc(scores, y_val))
    return torch.stack(history)


if __name__ == "__main__":
    result = main()
