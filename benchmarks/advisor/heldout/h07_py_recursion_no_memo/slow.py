"""Exponential recursion recomputing the same subproblems (the textbook case for functools.lru_cache)."""
PLANTED = ("redundant", "host_bound", "launch_overhead")


def ways(n):
    if n < 2:
        return 1
    return ways(n - 1) + ways(n - 2)


def main():
    return [ways(n) for n in (20, 21, 22, 23)]


if __name__ == "__main__":
    result = main()
