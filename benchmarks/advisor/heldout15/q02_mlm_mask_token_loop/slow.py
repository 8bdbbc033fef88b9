"""Masked-language-model training: collate pads token-id lists and applies BERT's 80/10/10 masking, then a small
model is trained on the masked positions. Planted: padding and masking are done token by token in Python
inside collate. Modelled on a GitHub issue ("the data collator for language modeling is the bottleneck of
my training loop")."""
PLANTED = ("input_pipeline", "host_bound")
TOL = 1e-4
import numpy as np
import torch
from torch import nn

VOCAB, PAD, MASK, N_SPECIAL = 512, 0, 1, 5
MAX_LEN, BATCH, STEPS = 256, 64, 40
rng = np.random.default_rng(0)
doc_lengths = rng.integers(64, MAX_LEN + 1, size=BATCH * STEPS)
docs = [rng.integers(N_SPECIAL, VOCAB, size=int(n)).tolist() for n in doc_lengths]

torch.manual_seed(0)
body = nn.Sequential(nn.Embedding(VOCAB, 32), nn.Linear(32, 32), nn.ReLU())
head = nn.Linear(32, VOCAB)


def collate(batch, mask_rng):
    u = mask_rng.random((len(batch), MAX_LEN))
    v = mask_rng.random((len(batch), MAX_LEN))
    rand_tok = mask_rng.integers(N_SPECIAL, VOCAB, size=(len(batch), MAX_LEN))
    inputs, labels = [], []
    for b, seq in enumerate(batch):
        row_in, row_lab = [], []
        for t in range(MAX_LEN):
            if t >= len(seq):
                row_in.append(PAD)
                row_lab.append(-100)
                continue
            tok = seq[t]
            if u[b, t] < 0.15:
                row_lab.append(tok)
                if v[b, t] < 0.8:
                    row_in.append(MASK)
                elif v[b, t] < 0.9:
                    row_in.append(int(rand_tok[b, t]))
                else:
                    row_in.append(tok)
            else:
                row_lab.append(-100)
                row_in.append(tok)
        inputs.append(row_in)
        labels.append(row_lab)
    return torch.tensor(inputs), torch.tensor(labels)


def main():
    opt = torch.optim.SGD([*body.parameters(), *head.parameters()], lr=0.1)
    mask_rng = np.random.default_rng(1)
    losses = []
    for step in range(STEPS):
        inp, lab = collate(docs[step * BATCH:(step + 1) * BATCH], mask_rng)
        hidden = body(inp)
        sel = lab != -100
        loss = nn.functional.cross_entropy(head(hidden[sel]), lab[sel])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
