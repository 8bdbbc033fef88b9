import random
from collections import Counter

import numpy as np

random.seed(0)
N_RECORDS = 7500
domains = ["example.com", "mail.org", "corp.net", "uni.edu"]
records = [f"User{random.randint(0, 4000)}@{random.choice(domains)}" for _ in range(N_RECORDS)]


def main():
    counts = Counter(r.lower() for r in records)
    pairs = 0
    per_domain = dict.fromkeys(domains, 0)
    for key, c in counts.items():
        n = c * (c - 1) // 2
        pairs += n
        per_domain[key.split("@")[1]] += n
    return np.array([pairs] + [per_domain[d] for d in domains], dtype=float)


if __name__ == "__main__":
    result = main()
