"""Raw token ids remapped to a pruned vocabulary with ``Tensor.apply_`` and a Python dict (forums: "how do I
map the values of a tensor through a dictionary?", answered with ``apply_``, which calls the Python function
once per element), before a bag-of-embeddings classifier scores the documents."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-5
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
    return {raw: new + 1 for new, raw in enumerate(top.tolist())}  # 0 = out of vocabulary


def remap(ids, vocab):
    out = ids.clone()
    out.apply_(lambda t: vocab.get(t, 0))
    return out


def main():
    vocab = build_vocab(docs)
    ids = remap(docs, vocab)
    with torch.no_grad():
        logits = torch.cat([head(embed(ids[i:i + 1024])) for i in range(0, N_DOCS, 1024)])
    oov = (ids == 0).double().mean()
    return torch.cat([logits.mean(0), logits.std(0), oov.reshape(1).float()])


if __name__ == "__main__":
    result = main()
