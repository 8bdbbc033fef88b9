import random

import numpy as np

random.seed(0)
BASE, MOD, K, STEP = 257, (1 << 61) - 1, 160, 16
WORDS = ["".join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(random.randint(2, 9)))
         for _ in range(2_000)]
DOCS = [" ".join(random.choice(WORDS) for _ in range(300)) for _ in range(60)]


def poly_hash(s):
    h = 0
    for c in s:
        h = (h * BASE + ord(c)) % MOD
    return h


def main():
    sketches = []
    for doc in DOCS:
        hashes = [poly_hash(doc[i:i + K]) for i in range(0, len(doc) - K + 1, STEP)]
        sketches.append(sorted(hashes)[:16])
    return np.array(sketches, dtype=np.float64)


if __name__ == "__main__":
    result = main()
