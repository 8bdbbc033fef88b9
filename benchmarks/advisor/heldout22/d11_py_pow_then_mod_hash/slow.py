"""Near-duplicate detection hashes 160-character shingles (every 16th offset) of each document with a polynomial
hash written as `sum(ord(c) * BASE ** e) % MOD`, so Python builds huge exact integers before reducing them once
(code review: "reduce modulo MOD as you go, or use three-argument pow")."""
PLANTED = ("hotspot", "memory")
TOL = 1e-12
import random

import numpy as np

random.seed(0)
BASE, MOD, K, STEP = 257, (1 << 61) - 1, 160, 16
WORDS = ["".join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(random.randint(2, 9)))
         for _ in range(2_000)]
DOCS = [" ".join(random.choice(WORDS) for _ in range(300)) for _ in range(60)]


def poly_hash(s):
    n = len(s)
    return sum(ord(c) * BASE ** (n - 1 - i) for i, c in enumerate(s)) % MOD


def main():
    sketches = []
    for doc in DOCS:
        hashes = [poly_hash(doc[i:i + K]) for i in range(0, len(doc) - K + 1, STEP)]
        sketches.append(sorted(hashes)[:16])
    return np.array(sketches, dtype=np.float64)


if __name__ == "__main__":
    result = main()
