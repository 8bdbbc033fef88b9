"""What the Python tracer costs per record as a run grows, against what the recording-cost model charges
(analyze/recording_cost.py), on one pure-Python loop.

    python benchmarks/tracer_cost_scale.py            # ~20 s

The loop calls a small function n times (``abs`` and ``len`` inside: calls, C calls and lines, as the
machine's figure is measured, collect/overhead.py). For each n, in one process: the loop bare, then under
``CollectionSession(("python",))``; the actual cost per record is (profiled - bare) / records, the charged one is
the model's total charge (records and bytecode slowdown) / records. The bare time the model leaves is printed
next to the measured one: a traced pure-Python loop is mostly recording, so a small error per record is a large
one in the bare time a gain is a share of.
"""

from __future__ import annotations

import time


def f(x):
    return abs(x) + len("ab")


def run(n):
    t = 0
    for i in range(n):
        t += f(i)
    return t


def main() -> None:
    from cann_nb.analyze import recording_cost as rc
    from cann_nb.analyze.context import Context
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.session import CollectionSession

    print("| calls | records | bare ms | profiled ms | modelled bare ms | actual ns/record | charged ns/record |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (2_000, 20_000, 200_000, 1_000_000, 2_000):
        t0 = time.perf_counter()
        run(n)
        bare = time.perf_counter() - t0
        sess = CollectionSession("scale", ("python",), CollectOptions())
        sess.start()
        try:
            run(n)
        finally:
            sess.stop()
        prof = sess.finish()
        ctx = Context(prof)
        records = prof.meta["collectors"]["python"]["records"]
        charged = float(rc.per_row(ctx).sum())
        print(f"| {n:,} | {records:,} | {bare * 1e3:.1f} | {ctx.wall / 1e6:.1f} | {ctx.wall_without_recording / 1e6:.1f} | "
              f"{(ctx.wall / 1e9 - bare) / records * 1e9:.0f} | {charged / records:.0f} |")


if __name__ == "__main__":
    main()
