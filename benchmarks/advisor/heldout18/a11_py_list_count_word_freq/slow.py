"""Counts word frequencies in a tokenised corpus with {w: words.count(w) for w in set(words)} (StackOverflow:
"word frequency count takes forever on a big text"). Every distinct word rescans the whole token list, so the
work grows with tokens x vocabulary; one pass with collections.Counter does the same counting."""
PLANTED = ("hotspot",)
TOL = 1e-9
import random

import numpy as np

random.seed(0)
VOCAB_SIZE, N_TOKENS = 550, 200_000
letters = "abcdefghijklmnopqrstuvwxyz"
vocab = sorted({"".join(random.choices(letters, k=random.randint(3, 9))) for _ in range(VOCAB_SIZE)})
weights = [1.0 / (r + 1) for r in range(len(vocab))]
text = " ".join(random.choices(vocab, weights=weights, k=N_TOKENS))


def word_frequencies(corpus):
    words = corpus.lower().split()
    return {w: words.count(w) for w in set(words)}


def main():
    freq = word_frequencies(text)
    return np.array([freq.get(w, 0) for w in vocab], dtype=float)


if __name__ == "__main__":
    result = main()
