"""A sequence tagger ported from Keras applies its classification head one time step at a time (a
hand-written ``TimeDistributed``), although ``nn.Linear`` takes the whole ``[batch, time, features]``
tensor at once (StackOverflow: "PyTorch equivalent of Keras TimeDistributed")."""
PLANTED = ("launch_overhead", "host_bound", "utilization")
TOL = 1e-4
import torch
from torch import nn

VOCAB = 5000
N_TAGS = 17
SEQ_LEN = 120
BATCH = 16
N_BATCHES = 40


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 64)
        self.rnn = nn.GRU(64, 128, batch_first=True)
        self.head = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, N_TAGS))

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        steps = []
        for t in range(h.shape[1]):
            steps.append(self.head(h[:, t, :]))
        return torch.stack(steps, dim=1)


def batches():
    g = torch.Generator().manual_seed(1)
    for _ in range(N_BATCHES):
        yield torch.randint(0, VOCAB, (BATCH, SEQ_LEN), generator=g)


def main():
    torch.manual_seed(0)
    model = Tagger().eval()
    tag_share = torch.zeros(N_TAGS)
    with torch.no_grad():
        for tokens in batches():
            probs = model(tokens).softmax(dim=-1)
            tag_share += probs.mean(dim=(0, 1))
    return tag_share / N_BATCHES


if __name__ == "__main__":
    result = main()
