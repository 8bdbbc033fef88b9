"""What numpy and pandas work a line of the user's code did, from the arrays the Python tracer sampled
on it (collect/line_arrays.py: shapes, dtypes, bytes, memory order, temporaries), where the tracer alone
sees only the line's time:

* ``array_temporaries``: a line that allocates and frees more bytes of temporaries than it reads and
  keeps (a broadcast ``x[:, None, :] - c[None]`` materialising points x centres x dims);
* ``repeated_rows``: a new array that is one row (or column) repeated (``np.tile``, ``np.repeat``): a
  broadcast written out to memory, then read again by every line that uses it;
* ``strided_gather``: rows gathered from a column-major (Fortran-order) array: every element of a row
  lies in its own cache line;
* ``object_numbers``: numbers held in object-dtype columns or arrays: each element a Python object;
* ``scan_per_key``: a mask over a whole table per key in a loop, where one grouping pass would do;
* ``float64_arrays``: numpy matmuls and transcendental functions in float64 (numpy's default).

Gains reason from bytes: memory-bound array work takes time in proportion to the bytes it moves, so a
line's time is scaled by the share of its bytes the fix removes (replayed). Lines without samples
(another collector, an imported profile) give no finding.
"""

from __future__ import annotations

import os

import numpy as np

from ... import formatting as F
from ..line_arrays import line_arrays
from ..timeline import outermost
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain

NUMBER_TYPES = {"int", "float", "bool", "complex", "Decimal", "Fraction"} | {
    f"{k}{b}" for k in ("int", "uint", "float", "complex") for b in (8, 16, 32, 64, 128)} | {"bool_"}


def _source(ctx, rows) -> str:
    """The line's label as the profile names it (``module.f line 12: source``)."""
    return str(ctx.names(rows[:1])[0]) if len(rows) else "?"


def where(file_line: str) -> str:
    path, _, line = file_line.rpartition(":")
    return f"{os.path.basename(path)}:{line}"


def finding_from_lines(ctx, th, rule_id, category, lines: list[tuple], title_of, suggestion, method, evidence):
    """[the Finding] for the flagged lines, or [] when none is flagged or their removable time is under
    ``min_pct``. lines: (line record, removable fraction of its time, description). Outer spans only: a
    line whose function's lines are flagged too is counted through them."""
    rows = np.concatenate([rec["rows"] for rec, _, _ in lines]) if lines else np.empty(0, dtype=np.int64)
    if not len(rows):
        return []
    factor = np.ones(ctx.n)
    for rec, frac, _ in lines:
        factor[rec["rows"]] = 1.0 - frac
    outer = outermost(ctx, rows)
    t = covered_ns(ctx, outer)
    removable = float(sum(float(ctx.dur[rec["rows"]].sum()) * frac for rec, frac, _ in lines))
    if pct(removable, ctx.wall_without_recording) < th["min_pct"]:
        return []
    gain, conf = _factor_gain(ctx, outer, factor)
    lines = sorted(lines, key=lambda x: -float(ctx.dur[x[0]["rows"]].sum()) * x[1])
    first = lines[0]
    evidence = dict(evidence, time_ns=t, lines=[
        {"line": rec["file_line"], "runs": int(len(rec["rows"])), "time_ns": float(ctx.dur[rec["rows"]].sum()),
         "removable_share": round(frac, 3), "what": what} for rec, frac, what in lines[:5]])
    return [make_finding(ctx, rule_id, category, title_of(first, t), evidence=evidence,
                         ops=[_source(ctx, rec["rows"]) for rec, _, _ in lines[:3]], suggestion=suggestion,
                         gain_ns=gain, method=METHOD_CP + method, confidence=conf * 0.6, rows=outer, affected_ns=t)]


def _innermost(ctx, flagged: list[tuple]) -> list[tuple]:
    """Drop a flagged line whose spans contain another flagged line's (the caller of a function whose
    own line makes the temporaries): the inner line is where the fix goes."""
    if len(flagged) < 2:
        return flagged
    mark = np.zeros(ctx.n, dtype=bool)
    for rec, _, _ in flagged:
        mark[rec["rows"]] = True
    has_inner = ctx._has_descendant(mark)
    return [x for x in flagged if not has_inner[x[0]["rows"]].all()]


def array_temporaries(ctx, th):
    """A line whose temporaries (bytes allocated and freed again within it, tracemalloc on a sampled run)
    are ``min_ratio`` times or more what it reads and keeps, and at least ``min_bytes``. Gain: the line's
    time less the share of its bytes moved through temporaries (each written once and read once):
    2T / (2T + read + kept)."""
    la = line_arrays(ctx)
    if la.empty:
        return
    flagged = []
    for rec in la.to_dict("records"):
        temp = rec["temporaries_bytes"]
        if not np.isfinite(temp) or not len(rec["rows"]):
            continue
        data = rec["in_bytes"] + np.nan_to_num(rec["kept_bytes"])
        if temp < th["min_bytes"] or temp < th["min_ratio"] * data:
            continue
        frac = 2.0 * temp / (2.0 * temp + data)
        flagged.append((rec, frac, f"{F.nbytes(temp)} of temporaries per run, against {F.nbytes(data)} read and kept"))
    flagged = _innermost(ctx, flagged)
    if not flagged:
        return

    def title(first, t):
        rec = first[0]
        return (f"Line {where(rec['file_line'])} allocates {F.nbytes(rec['temporaries_bytes'])} of temporary arrays per run, "
                f"{rec['temporaries_bytes'] / max(rec['in_bytes'] + np.nan_to_num(rec['kept_bytes']), 1):.0f}x the data it reads and keeps "
                f"({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end, in {len(flagged)} place(s))")

    sugg = ("The expression materialises intermediates far larger than its inputs and result (a broadcast such as "
            "x[:, None, :] - c[None, :, :] builds the whole outer shape). Reformulate so the large intermediate is "
            "never built (pairwise distances as |x|^2 - 2 x.c + |c|^2 with a matmul, np.einsum, "
            "scipy.spatial.distance.cdist), process in chunks that fit in cache, or reuse buffers with out=.")
    yield from finding_from_lines(ctx, th, "array_temporaries", "memory", flagged, title, sugg,
                                   " (each line's time scaled by the share of its bytes that are not temporaries)",
                                   {"min_bytes": th["min_bytes"], "min_ratio": th["min_ratio"]})


def repeated_rows(ctx, th):
    """New arrays that are one row (column) repeated (np.tile, np.repeat of a vector): a broadcast written
    to memory. Gain: the lines that make them removed, and every line that reads them scaled by the share
    of its bytes they are."""
    la = line_arrays(ctx)
    if la.empty:
        return
    recs = la.to_dict("records")
    made = {}   # name -> (shape, nbytes) of the repeated arrays
    flagged = []
    for rec in recs:
        reps = [o for o in rec["operands"] if o.get("role") == "out" and o.get("repeats")]
        if reps and len(rec["rows"]):
            for o in reps:
                made[o["name"].removesuffix(" (new)")] = (tuple(o["shape"]), o["nbytes"])
            flagged.append((rec, 1.0, "makes " + ", ".join(f"{o['name'].removesuffix(' (new)')} "
                                                         f"{tuple(o['shape'])} ({F.nbytes(o['nbytes'])}), one "
                                                         f"{o['repeats'][:-1]} repeated" for o in reps)))
    if not flagged:
        return
    makers = {id(x[0]) for x in flagged}
    for rec in recs:
        if id(rec) in makers or not len(rec["rows"]):
            continue
        hit = [o for o in rec["operands"] if o.get("role") == "in" and o["name"] in made
               and tuple(o["shape"]) == made[o["name"]][0]]
        if not hit:
            continue
        rep = float(sum(o["nbytes"] for o in hit))
        moved = rec["in_bytes"] + np.nan_to_num(rec["kept_bytes"]) + np.nan_to_num(rec["temporaries_bytes"])
        if not np.isfinite(rec["kept_bytes"]):   # not measured: its result as large as its largest input
            moved += max(o["nbytes"] for o in rec["operands"] if o.get("role") == "in")
        flagged.append((rec, min(rep / max(moved, 1.0), 1.0), "reads " + ", ".join(o["name"] for o in hit)))

    def title(first, t):
        return (f"{len(made)} array(s) built by repeating one row or column ({', '.join(sorted(made))}): broadcasts "
                f"written to memory and read back, {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) in the lines "
                "that make and read them")

    sugg = ("Let broadcasting stretch the vector instead of copying it out to the full shape: X - mu with mu of shape "
            "(D,) (or mu[None, :]) instead of X - np.tile(mu, (N, 1)); np.broadcast_to gives a read-only view "
            "without copying when a full-shape array is really needed.")
    yield from finding_from_lines(ctx, th, "repeated_rows", "memory", flagged, title, sugg,
                                   " (the making lines removed; reading lines scaled by the repeated arrays' share of their bytes)",
                                   {"arrays": {k: {"shape": list(v[0]), "bytes": v[1]} for k, v in made.items()}})


def strided_gather(ctx, th):
    """Rows gathered or indexed (``a[idx]``, ``a[i]``) from a 2-D+ array in column-major (Fortran) order
    of ``min_bytes`` or more: each element of a row lies ``shape[0] * itemsize`` bytes from the next, in
    its own cache line. Gain: the line's time scaled to itemsize / cache line (the bytes a row gather
    then touches); the one-time np.ascontiguousarray copy is not counted."""
    la = line_arrays(ctx)
    if la.empty:
        return
    line = th["cache_line_bytes"]
    flagged = []
    for rec in la.to_dict("records"):
        hit = [o for o in rec["operands"] if o.get("role") == "in" and o.get("indexed") == "rows"
               and o.get("order") == "F" and len(o.get("shape", ())) >= 2 and o["nbytes"] >= th["min_bytes"]]
        if not hit or not len(rec["rows"]):
            continue
        o = max(hit, key=lambda o: o["nbytes"])
        item = o["nbytes"] / max(int(np.prod(o["shape"])), 1)
        flagged.append((rec, max(0.0, 1.0 - item / line),
                        f"{o['name']} {tuple(o['shape'])} {o['dtype']} in Fortran order, indexed by rows"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} gathers rows of a column-major array "
                f"({first[2]}): each element in its own cache line, {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Make the array row-major once, before the loop: np.ascontiguousarray(a) (DataFrame.to_numpy() of a "
            "frame of float columns, a.T and np.asfortranarray give column-major arrays); or index columns instead.")
    yield from finding_from_lines(ctx, th, "strided_gather", "layout", flagged, title, sugg,
                                   f" (each line's time scaled to itemsize / {line} B cache line)",
                                   {"cache_line_bytes": line})


def _numeric_share(o: dict) -> float:
    """Share of an operand's columns that are numbers stored as Python objects."""
    holds = o.get("holds")
    if not holds or "object" not in str(o.get("dtype")):
        return 0.0
    if o["kind"] != "DataFrame":
        return 1.0 if holds in NUMBER_TYPES else 0.0
    counts = {}
    for part in holds.split(", "):
        name, _, k = part.rpartition(" x")
        counts[name] = int(k or 0)
    numeric = sum(v for k, v in counts.items() if k in NUMBER_TYPES)
    return numeric / max(o["shape"][1], 1)


def object_numbers(ctx, th):
    """Lines working on numbers held in object-dtype columns or arrays (each element a Python object:
    arithmetic, comparisons and reductions run in the interpreter). Gain: those lines' time, for the
    share of their frame's columns that are numbers in object dtype, at 1/expected_speedup."""
    la = line_arrays(ctx)
    if la.empty:
        return
    speed = th["expected_speedup"]
    flagged = []
    for rec in la.to_dict("records"):
        if not len(rec["rows"]):
            continue
        shares = [(o, _numeric_share(o)) for o in rec["operands"] if o.get("role") == "in"]
        shares = [(o, s) for o, s in shares if s > 0 and o["shape"][0] >= th["min_rows"]]
        if not shares:
            continue
        o, share = max(shares, key=lambda x: x[1])
        flagged.append((rec, share * (1.0 - 1.0 / speed),
                        f"{o['name']}: {o['kind']} {tuple(o['shape'])}, {o['dtype']}, holding {o['holds']}"))
    if not flagged:
        return

    def title(first, t):
        return (f"Numbers stored as Python objects (dtype object) in {len(flagged)} line(s) or function(s), e.g. {first[2]}: "
                f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) of interpreter work per element")

    sugg = ("Give numeric columns a numeric dtype once, where the data is loaded: pd.DataFrame(rows, columns=...) "
            "instead of np.array(rows, dtype=object), df.infer_objects(), pd.to_numeric(col) or "
            "df.astype({'amount': 'float64'}); keep strings as 'category' or 'string[pyarrow]'.")
    yield from finding_from_lines(ctx, th, "object_numbers", "host_bound", flagged, title, sugg,
                                   f" (numeric-object share of each line's time at 1/{speed:g})",
                                   {"expected_speedup": speed})


def scan_per_key(ctx, th):
    """A line run ``min_runs`` times or more that selects from the same large table or array with a mask
    compared from it (``df[df["k"] == key]``, ``x[labels == k]`` in a loop over keys): every run compares
    and scans all rows to keep a few, so the loop does rows x keys work where one grouping pass
    (groupby, np.argsort + np.split, np.bincount) does rows. Gain: the line's runs brought down to one
    run's time (the grouping pass), replayed."""
    la = line_arrays(ctx)
    if la.empty:
        return
    flagged = []
    for rec in la.to_dict("records"):
        rows = rec["rows"]
        if len(rows) < th["min_runs"]:
            continue
        hit = [o for o in rec["operands"] if o.get("role") == "in" and o.get("indexed") == "mask"
               and o.get("same_object") and o["shape"][0] >= th["min_rows"]]
        if not hit:
            continue
        o = max(hit, key=lambda o: o["shape"][0])
        total = float(ctx.dur[rows].sum())
        one = float(np.median(ctx.dur[rows]))
        flagged.append((rec, max(0.0, 1.0 - one / max(total, 1.0)),
                        f"{o['name']} ({o['shape'][0]:,} rows) masked {len(rows):,} times"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} scans the whole table once per key: {first[2]}, "
                f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Group once instead of masking per key: df.groupby('k').agg(...) (or for k, sub in df.groupby('k')), "
            "np.argsort(labels) + np.split, np.bincount(labels, weights=x) / np.add.at; each costs one pass over the "
            "rows instead of one per key.")
    yield from finding_from_lines(ctx, th, "scan_per_key", "redundant", flagged, title, sugg,
                                   " (each line's runs at one run's time: one grouping pass)", {"min_runs": th["min_runs"]})


def float64_arrays(ctx, th):
    """Lines whose compute-heavy calls (matmul: ``@``, np.dot/einsum/linalg; transcendental: np.exp/
    tanh/log/...) work on float64 arrays of ``min_bytes`` or more: numpy's default dtype, where float32 is
    often enough for ML work. float32 halves the bytes and doubles the SIMD lanes and BLAS rate. Gain: those
    lines at 1/expected_speedup (1/transcendental_speedup when they call transcendental functions only),
    as the float64 rule does for framework ops."""
    la = line_arrays(ctx)
    if la.empty or "work" not in la:
        return
    flagged = []
    for rec in la.to_dict("records"):
        work = rec.get("work")
        if not isinstance(work, list) or not {"matmul", "transcendental"} & set(work) or not len(rec["rows"]):
            continue   # the kinds of work whose speed depends on the dtype's width
        f64 = [o for o in rec["operands"] if o.get("role") == "in" and o.get("dtype") == "float64"
               and o.get("kind") == "ndarray"]
        if sum(o["nbytes"] for o in f64) < th["min_bytes"]:
            continue
        speed = th["expected_speedup"] if "matmul" in work else th["transcendental_speedup"]
        names = ", ".join(f"{o['name']} {tuple(o['shape'])}" for o in f64[:3])
        flagged.append((rec, 1.0 - 1.0 / speed, f"{' and '.join(work)} on float64 {names}"))
    if not flagged:
        return

    def title(first, t):
        return (f"float64 compute in {len(flagged)} line(s), e.g. line {where(first[0]['file_line'])}: {first[2]}; "
                f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("numpy computes in float64 by default. Where float32 is precise enough (ML features, weights, "
            "activations), create or convert the arrays once: rng.standard_normal(..., dtype=np.float32), "
            "np.asarray(x, dtype=np.float32), a.astype(np.float32); matmuls and transcendental functions then move "
            "half the bytes at twice the SIMD width.")
    yield from finding_from_lines(ctx, th, "float64_arrays", "precision", flagged, title, sugg,
                                   f" (matmul lines at 1/{th['expected_speedup']:g}, transcendental-only lines at "
                                   f"1/{th['transcendental_speedup']:g})",
                                   {"expected_speedup": th["expected_speedup"],
                                   "transcendental_speedup": th["transcendental_speedup"]})


def float16_arrays(ctx, th):
    """Lines computing on float16 numpy arrays of ``min_bytes`` or more (a store kept in half precision to
    save memory): numpy has no BLAS and, for most ufuncs and reductions, no SIMD loop for float16, so each
    element is converted to float32 and back one at a time. Matrix products and arithmetic (operators,
    reductions) are what is slow; exp/log and sorting are not. Gain: matmul lines at 1/matmul_speedup,
    arithmetic lines at 1/arithmetic_speedup: upcast once, compute in float32."""
    la = line_arrays(ctx)
    if la.empty or "work" not in la:
        return
    flagged = []
    for rec in la.to_dict("records"):
        work = rec.get("work")
        if not isinstance(work, list) or not {"matmul", "arithmetic"} & set(work) or not len(rec["rows"]):
            continue
        f16 = [o for o in rec["operands"] if o.get("role") in ("in", "inout") and o.get("dtype") == "float16"
               and o.get("kind") == "ndarray" and not o.get("indexed")]   # a[:10].sum() works on a part
        if sum(o["nbytes"] for o in f16) < th["min_bytes"]:
            continue
        speed = th["matmul_speedup"] if "matmul" in work else th["arithmetic_speedup"]
        names = ", ".join(f"{o['name']} {tuple(o['shape'])}" for o in f16[:3])
        kind = "matmul" if "matmul" in work else "arithmetic"
        flagged.append((rec, 1.0 - 1.0 / speed, f"{kind} on float16 {names}"))
    if not flagged:
        return

    def title(first, t):
        return (f"float16 arithmetic in numpy in {len(flagged)} line(s), e.g. line {where(first[0]['file_line'])}: "
                f"{first[2]}; {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("numpy stores float16 but computes it slowly on the CPU: no BLAS for its matmuls, no SIMD loop for most "
            "of its arithmetic and reductions. Keep the array in float16 to save memory if you must, but upcast once "
            "before computing (z = store.astype(np.float32)) and cast the result back only if it is stored; "
            "the matmul and the elementwise work then run at float32 speed.")
    yield from finding_from_lines(ctx, th, "float16_arrays", "precision", flagged, title, sugg,
                                   f" (matmul lines at 1/{th['matmul_speedup']:g}, arithmetic lines at "
                                   f"1/{th['arithmetic_speedup']:g})",
                                   {"matmul_speedup": th["matmul_speedup"],
                                    "arithmetic_speedup": th["arithmetic_speedup"]})


def chained_copies(ctx, th):
    """Lines that only copy (``df = df.copy()``, ``a = np.copy(a)``, ``copy.deepcopy``) an object of
    ``min_bytes`` or more that their previous run made: a chain of steps ``df = step(df)`` each starting with a
    defensive copy of the frame the last step returned, which nothing else holds once the caller rebinds it.
    The copy protects no one's data; it costs the whole object (a frame's blocks consolidated, every column
    copied) per step. Gain: the line's runs but the first."""
    la = line_arrays(ctx)
    if la.empty or "work" not in la:
        return
    flagged = []
    for rec in la.to_dict("records"):
        runs = len(rec["rows"])
        if rec.get("work") != ["copy"] or runs < th["min_runs"]:
            continue
        chained = [o for o in rec["operands"] if o.get("role") in ("in", "inout") and o.get("made_by_last_run")
                   and o.get("nbytes", 0) >= th["min_bytes"]]
        if not chained:
            continue
        o = max(chained, key=lambda o: o["nbytes"])
        flagged.append((rec, (runs - 1) / runs, f"copies {o['name']} ({o['kind']} {tuple(o['shape'])}, "
                                                 f"{F.nbytes(o['nbytes'])}), which its previous run made"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} {first[2]}, on each of {len(first[0]['rows']):,} runs: a "
                f"chain of defensive copies, {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Each step copies the object the previous step returned, which nothing else keeps: copy once at the "
            "start of the pipeline (or not at all), and let the steps add to it; better, have each step return only "
            "its new column(s) and join them once (pd.concat([df, pd.DataFrame(new)], axis=1), df.assign(**new)). "
            "A copy 'to avoid SettingWithCopyWarning' is needed only for a slice of another frame, not for a frame "
            "a step made itself.")
    yield from finding_from_lines(ctx, th, "chained_copies", "redundant", flagged, title, sugg,
                                   " (each line's runs but the first removed)", {"min_bytes": th["min_bytes"]})
