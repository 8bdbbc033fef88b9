"""Membership tests against a list inside a loop (StackOverflow: "x in list is slow"): O(n) per test."""
PLANTED = ("hotspot", "host_bound", "redundant")
import random

random.seed(0)
items = [random.randrange(100_000) for _ in range(6000)]


def main():
    seen = []
    dups = 0
    for v in items:
        if v in seen:
            dups += 1
        else:
            seen.append(v)
    return [dups, len(seen)]


if __name__ == "__main__":
    result = main()
