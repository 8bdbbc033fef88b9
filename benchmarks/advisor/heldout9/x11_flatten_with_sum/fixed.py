import random
import re
from collections import Counter
from itertools import chain

import numpy as np

random.seed(0)

N_DOCS = 1500
TOKEN_RE = re.compile(r"[a-z]+")
SUFFIXES = ("ing", "ed", "es", "ly", "s")


def make_corpus(n_docs=N_DOCS):
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "de", "pa"]
    words = ["".join(random.choices(syllables, k=random.randint(1, 3))) for _ in range(3000)]
    weights = [1.0 / (r + 1) for r in range(len(words))]
    docs = []
    for _ in range(n_docs):
        n = random.randint(20, 100)
        docs.append(" ".join(random.choices(words, weights=weights, k=n)).title())
    return docs


def stem(token):
    for suffix in SUFFIXES:
        if token.endswith(suffix) and len(token) > len(suffix) + 2:
            return token[:-len(suffix)]
    return token


def tokenize(doc):
    return [stem(t) for t in TOKEN_RE.findall(doc.lower())]


def build_vocab(token_lists, min_count=3):
    all_tokens = list(chain.from_iterable(token_lists))
    counts = Counter(all_tokens)
    vocab = {w: i for i, (w, c) in enumerate(counts.most_common()) if c >= min_count}
    return vocab, counts


def bigram_doc_freq(token_lists):
    df = Counter()
    for tokens in token_lists:
        df.update(set(zip(tokens, tokens[1:])))
    return df


def encode(token_lists, vocab):
    unk = len(vocab)
    return [[vocab.get(t, unk) for t in tokens] for tokens in token_lists]


def main():
    docs = make_corpus()
    token_lists = [tokenize(d) for d in docs]
    vocab, counts = build_vocab(token_lists)
    encoded = encode(token_lists, vocab)
    bigrams = bigram_doc_freq(token_lists)
    frequent = sorted(c for c in bigrams.values() if c >= 5)
    lengths = np.array([len(e) for e in encoded], dtype=float)
    top = np.array([c for _, c in counts.most_common(50)], dtype=float)
    return np.concatenate([[len(vocab), lengths.mean(), lengths.max(), len(frequent), sum(frequent)], top])


if __name__ == "__main__":
    result = main()
