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
    embeddings, popularity = store["embeddings"], store["popularity"]
    scores = []
    for q in queries:
        emb = embeddings[q]
        pop = popularity[q]
        sims = candidates @ emb / (np.linalg.norm(candidates, axis=1) * np.linalg.norm(emb))
        scores.append(sims * (1.0 + 0.1 * pop))
    store.close()
    os.remove(path)
    os.rmdir(os.path.dirname(path))
    return np.array(scores)


if __name__ == "__main__":
    result = main()
