"""Evaluating a next-token model by keeping every batch's full logits (batch x seq x vocab) in a list and
taking the argmax over the concatenation at the end (GitHub issues on Trainer-style evaluation loops:
"evaluation memory keeps growing / OOM during eval — the loop accumulates all logits"). Memory grows by
one logits tensor per batch and the final ``torch.cat`` copies them all again. The fix: reduce each
batch to what the metric needs (the argmax ids) inside the loop and keep only those."""
PLANTED = ("memory",)
TOL = 1e-6
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, DIM, BATCH, SEQ, N_BATCHES = 8000, 128, 32, 32, 40


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.mix = nn.Sequential(nn.Linear(DIM, DIM), nn.GELU(), nn.LayerNorm(DIM))
        self.lm_head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        return self.lm_head(self.mix(self.embed(ids)))


model = TinyLM().eval()
tokens = torch.randint(0, VOCAB, (N_BATCHES, BATCH, SEQ + 1))


def evaluate():
    all_logits, all_labels = [], []
    with torch.no_grad():
        for b in range(N_BATCHES):
            inputs, labels = tokens[b, :, :-1], tokens[b, :, 1:]
            logits = model(inputs)
            all_logits.append(logits)
            all_labels.append(labels)
    preds = torch.cat(all_logits).argmax(dim=-1)
    labels = torch.cat(all_labels)
    accuracy = (preds == labels).float().mean()
    return torch.cat([accuracy.view(1), preds.flatten().float()])


if __name__ == "__main__":
    result = evaluate()
