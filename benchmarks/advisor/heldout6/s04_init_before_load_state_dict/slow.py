"""Loads a trained text classifier from a checkpoint file and scores one batch of token sequences, after
first building the model normally, so every embedding and linear weight is randomly initialised and then
overwritten by load_state_dict (GitHub issues and forum threads: "model construction takes longer than
inference"; the fix is building on the meta device and loading with assign=True).

The checkpoint is written to a temporary file first, standing in for the training run."""
PLANTED = ("cold_start", "redundant")
TOL = 1e-5
import os
import tempfile

import torch

VOCAB, DIM, HIDDEN, CLASSES = 60_000, 256, 2048, 20


class TextClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.EmbeddingBag(VOCAB, DIM, mode="mean")
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(DIM, HIDDEN), torch.nn.GELU(),
            torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.GELU(),
            torch.nn.Linear(HIDDEN, CLASSES))

    def forward(self, tokens):
        return self.mlp(self.embed(tokens))


def write_checkpoint(path):
    g = torch.Generator().manual_seed(0)
    shapes = {"embed.weight": (VOCAB, DIM), "mlp.0.weight": (HIDDEN, DIM), "mlp.0.bias": (HIDDEN,),
              "mlp.2.weight": (HIDDEN, HIDDEN), "mlp.2.bias": (HIDDEN,), "mlp.4.weight": (CLASSES, HIDDEN),
              "mlp.4.bias": (CLASSES,)}
    state = {k: torch.empty(s).uniform_(-0.05, 0.05, generator=g) for k, s in shapes.items()}
    torch.save(state, path)


def main(path):
    model = TextClassifier()
    model.load_state_dict(torch.load(path))
    model.eval()
    tokens = torch.randint(0, VOCAB, (64, 128), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        return model(tokens).softmax(1)


if __name__ == "__main__":
    fd, ckpt = tempfile.mkstemp(suffix=".pt")
    os.close(fd)
    try:
        write_checkpoint(ckpt)
        result = main(ckpt)
    finally:
        os.remove(ckpt)
