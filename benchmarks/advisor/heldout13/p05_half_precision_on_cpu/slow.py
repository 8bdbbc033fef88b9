"""Batch scoring of documents with a bag-of-embeddings text classifier on a CPU server: token ids are
hashed from the raw documents, looked up in an EmbeddingBag, and an MLP head gives class probabilities;
the model was converted with .half() "to halve memory and speed up inference" (modelled on PyTorch forum
threads asking why half-precision inference on CPU is slower than expected)."""
PLANTED = ("precision", "hotspot")
TOL = 1e-2
import torch

torch.manual_seed(0)
VOCAB, DIM, N_CLASSES = 50_000, 128, 20
N_DOCS, DOC_LEN, BATCH = 12_288, 48, 1_024


class BagClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.EmbeddingBag(VOCAB, DIM, mode="mean")
        self.head = torch.nn.Sequential(
            torch.nn.Linear(DIM, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
            torch.nn.Linear(256, N_CLASSES),
        )

    def forward(self, ids):
        return self.head(self.embed(ids))


raw_tokens = torch.randint(0, 2**31 - 1, (N_DOCS, DOC_LEN))


def hash_tokens(tok):
    # multiplicative hashing of raw token codes into the embedding table, done in int64
    h = (tok * 2654435761) % (2**32)
    h = (h ^ (h >> 13)) * 1274126177 % (2**32)
    return h % VOCAB


model = BagClassifier().eval()
model = model.half()


@torch.no_grad()
def score():
    out = []
    for start in range(0, N_DOCS, BATCH):
        ids = hash_tokens(raw_tokens[start:start + BATCH])
        logits = model(ids)
        out.append(torch.softmax(logits.float(), dim=-1))
    return torch.cat(out)


if __name__ == "__main__":
    result = score()
