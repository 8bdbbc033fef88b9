"""Builds TF-IDF vectors for a corpus of tokenised documents and finds each document's nearest neighbour
by cosine similarity; the term counts of each document come from np.unique(..., return_counts=True)
(StackOverflow: "fastest way to count occurrences of integers in a numpy array"; the answers compare
np.unique, which sorts, with np.bincount, which does not).

Token ids are small integers below the vocabulary size, so a sort per document is wasted work."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
DOCS, VOCAB = 1000, 6000
# skewed word frequencies: low ids are common words
corpus = [(VOCAB * rng.random(int(rng.integers(8_000, 16_000))) ** 3).astype(np.int64) for _ in range(DOCS)]


def term_counts(doc):
    ids, counts = np.unique(doc, return_counts=True)
    row = np.zeros(VOCAB)
    row[ids] = counts
    return row


def main():
    tf = np.stack([term_counts(doc) for doc in corpus])
    df = (tf > 0).sum(0)
    idf = np.log((1 + DOCS) / (1 + df)) + 1.0
    tfidf = np.log1p(tf) * idf
    tfidf /= np.linalg.norm(tfidf, axis=1, keepdims=True)
    sim = tfidf @ tfidf.T
    np.fill_diagonal(sim, -1.0)
    return np.concatenate([sim.argmax(1).astype(float), sim.max(1)])


if __name__ == "__main__":
    result = main()
