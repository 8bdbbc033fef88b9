"""Rows looked up one query at a time from an .npz archive opened with np.load: indexing the NpzFile by key
reads (and unpacks) the whole stored array again on every access, so each lookup of one row costs a full
read of the file's arrays (StackOverflow question: "why is accessing np.load('x.npz')['arr'][i] in a loop
so slow?")."""
PLANTED = ("redundant", "input_pipeline", "hotspot")
TOL = 1e-6
import os
import tempfile

import numpy as np

rng = np.random.default_rng(0)
path = os.path.join(tempfile.mkdtemp(), "item_embeddings.npz")
np.savez(path, embeddings=rng.normal(size=(6000, 128)).astype(np.float32),
         popularity=rng.random(6000).astype(np.float32))
candidates = rng.normal(size=(64, 128)).astype(np.float32)
queries = rng.integers(0, 6000, size=600)


def main():
    store = np.load(path)
    scores = []
    for q in queries:
        emb = store["embeddings"][q]
        pop = store["popularity"][q]
        sims = candidates @ emb / (np.linalg.norm(candidates, axis=1) * np.linalg.norm(emb))
        scores.append(sims * (1.0 + 0.1 * pop))
    store.close()
    os.remove(path)
    os.rmdir(os.path.dirname(path))
    return np.array(scores)


if __name__ == "__main__":
    result = main()
