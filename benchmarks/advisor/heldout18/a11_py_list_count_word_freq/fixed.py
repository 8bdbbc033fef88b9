import random
from collections import Counter

import numpy as np

random.seed(0)
VOCAB_SIZE, N_TOKENS = 550, 200_000
letters = "abcdefghijklmnopqrstuvwxyz"
vocab = sorted({"".join(random.choices(letters, k=random.randint(3, 9))) for _ in range(VOCAB_SIZE)})
weights = [1.0 / (r + 1) for r in range(len(vocab))]
text = " ".join(random.choices(vocab, weights=weights, k=N_TOKENS))


def word_frequencies(corpus):
    words = corpus.lower().split()
    return Counter(words)


def main():
    freq = word_frequencies(text)
    return np.array([freq.get(w, 0) for w in vocab], dtype=float)


if __name__ == "__main__":
    result = main()
