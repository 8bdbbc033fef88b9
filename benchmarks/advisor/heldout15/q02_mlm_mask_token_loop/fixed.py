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
    lengths = np.fromiter((len(s) for s in batch), dtype=np.int64, count=len(batch))
    valid = np.arange(MAX_LEN)[None, :] < lengths[:, None]
    toks = np.full((len(batch), MAX_LEN), PAD, dtype=np.int64)
    toks[valid] = np.concatenate([np.asarray(s, dtype=np.int64) for s in batch])
    chosen = valid & (u < 0.15)
    labels = np.where(chosen, toks, -100)
    inputs = np.where(chosen & (v < 0.8), MASK, np.where(chosen & (v < 0.9), rand_tok, toks))
    return torch.from_numpy(inputs), torch.from_numpy(labels)


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
