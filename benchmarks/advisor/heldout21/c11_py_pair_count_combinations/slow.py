"""Counts duplicate-record pairs (same normalised e-mail key) in a customer list for a dedup report.
Planted: every pair of records is compared with itertools.combinations (O(n^2), ~28M comparisons)
instead of counting keys once with a Counter and summing c*(c-1)/2. Modelled on StackOverflow "count pairs with equal values"."""
PLANTED = ("hotspot", "host_bound")
TOL = 1e-12
import itertools
import random

import numpy as np

random.seed(0)
N_RECORDS = 7500
domains = ["example.com", "mail.org", "corp.net", "uni.edu"]
records = [f"User{random.randint(0, 4000)}@{random.choice(domains)}" for _ in range(N_RECORDS)]


def main():
    keys = [r.lower() for r in records]
    pairs = 0
    per_domain = dict.fromkeys(domains, 0)
    for a, b in itertools.combinations(keys, 2):
        if a == b:
            pairs += 1
            per_domain[a.split("@")[1]] += 1
    return np.array([pairs] + [per_domain[d] for d in domains], dtype=float)


if __name__ == "__main__":
    result = main()
