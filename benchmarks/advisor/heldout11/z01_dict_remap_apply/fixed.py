import torch

torch.manual_seed(0)
RAW_VOCAB = 60_000
KEEP = 8_000
N_DOCS, DOC_LEN = 16_000, 320
# skewed (Zipf-like) raw ids, as they come out of a hashing tokenizer
docs = (torch.rand(N_DOCS, DOC_LEN) ** 3 * RAW_VOCAB).long()

embed = torch.nn.EmbeddingBag(KEEP + 1, 64, mode="mean")
head = torch.nn.Linear(64, 5)


def build_vocab(ids):
    counts = torch.bincount(ids.flatten(), minlength=RAW_VOCAB)
    top = counts.topk(KEEP).indices
    lut = torch.zeros(RAW_VOCAB, dtype=torch.long)  # 0 = out of vocabulary
    lut[top] = torch.arange(1, KEEP + 1)
    return lut


def remap(ids, lut):
    return lut[ids]


def main():
    lut = build_vocab(docs)
    ids = remap(docs, lut)
    with torch.no_grad():
        logits = torch.cat([head(embed(ids[i:i + 1024])) for i in range(0, N_DOCS, 1024)])
    oov = (ids == 0).double().mean()
    return torch.cat([logits.mean(0), logits.std(0), oov.reshape(1).float()])


if __name__ == "__main__":
    result = main()
