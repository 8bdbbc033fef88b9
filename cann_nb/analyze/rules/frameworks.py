"""Framework-specific rules (issue 18): TensorFlow eager op-by-op execution and tf.function retracing,
MindSpore PyNative op-by-op execution. They read the names the importers keep in ``full_name``
(ingest/xprof.py: ``EagerLocalExecute: MatMul`` for eager ops, ``tf.function-graph_building`` for a
trace; ingest/mindspore_cpu.py: ``MatMul`` bare for a PyNative launch, ``Default/0-Dense/MatMul-op0`` in
Graph mode)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .. import classify as C
from ... import formatting as F
from .base import METHOD_CP, covered_spans_ns, make_finding, pct, replay_gain, top_names

EAGER_PREFIX = "EagerLocalExecute: "
EAGER_OP_RE = re.compile(r"^EagerLocalExecute: (?!__)")       # an eager op, not a tf.function call
CONCRETE_FN_RE = re.compile(r"^EagerLocalExecute: __inference_")
TRACE_NAME = "tf.function-graph_building"
KERNEL_NAMES = ("KernelAndDeviceFunc::Run", "EagerKernelExecute")   # an eager op's kernel, innermost first


def _full_name(ctx) -> pd.Series | None:
    ev = ctx.events
    return ev["full_name"] if "full_name" in ev.columns else None


def _runs(ctx, rows: np.ndarray, gap_ns: int, min_run: int):
    """Runs of consecutive rows on one track whose gaps are under gap_ns: (first, last) index arrays into
    ``rows`` (sorted by track, then start), the sorted rows, and the run spans."""
    order = np.lexsort((ctx.start[rows], ctx.track_code[rows]))
    rows = rows[order]
    s, e, tr = ctx.start[rows], ctx.end[rows], ctx.track_code[rows]
    link = np.zeros(len(rows), dtype=bool)
    link[1:] = (tr[1:] == tr[:-1]) & (s[1:] - e[:-1] < gap_ns)
    first = np.flatnonzero(~link)
    last = np.append(first[1:], len(rows)) - 1
    end = np.maximum.reduceat(e, first) if len(first) else e[:0]
    keep = (last - first + 1) >= min_run
    return rows, first[keep], last[keep], s[first[keep]], end[keep]


def _in_runs(rows_sorted, first, last) -> np.ndarray:
    if not len(first):
        return rows_sorted[:0]
    return np.concatenate([rows_sorted[a:b + 1] for a, b in zip(first, last)])


def _repeated(ctx, rows: np.ndarray, min_repeats: int) -> np.ndarray:
    """The rows whose op name occurs at least min_repeats times (a loop), not one-off set-up ops."""
    codes = ctx.name_code[rows]
    counts = np.bincount(np.maximum(codes, 0), minlength=1)
    return rows[counts[np.maximum(codes, 0)] >= min_repeats]


# -- TensorFlow: eager op by op -------------------------------------------------------------------
def tf_eager_ops(ctx, th):
    """TensorFlow ops run eagerly, one by one from Python (``EagerLocalExecute: MatMul`` on the Python
    thread: a Keras model or TF code called outside ``tf.function``), many times over. Each eager op
    pays Python and dispatch work (the Python of the layers between ops, argument conversion, placement,
    the eager executor) that a ``tf.function`` graph pays once when it traces. Gain: the runs of eager
    ops (ops of a name seen at least ``min_repeats`` times, gaps under ``gap_ns``) keep only their
    kernels' own run time (``KernelAndDeviceFunc::Run`` inside each op), the rest replayed away; an upper
    bound, since each tf.function call keeps a fixed cost the eager profile cannot show."""
    full = _full_name(ctx)
    if full is None:
        return
    is_op = (ctx.events["cat"] == "op").to_numpy()
    eager = C.name_flags(full, EAGER_OP_RE) & is_op
    rows = _repeated(ctx, np.flatnonzero(eager), th["min_repeats"])
    if len(rows) < th["min_ops"]:
        return
    srt, first, last, rs, re_ = _runs(ctx, rows, th["gap_ns"], 20)
    if not len(first):
        return
    flagged = _in_runs(srt, first, last)
    region = covered_spans_ns(ctx, rs, re_)
    # the kernels inside the flagged eager ops: KernelAndDeviceFunc::Run (or EagerKernelExecute) whose
    # parent or grandparent is one of them
    mark = np.zeros(ctx.n, dtype=bool)
    mark[flagged] = True
    kernel_rows = np.zeros(0, dtype=np.int64)
    for kname in KERNEL_NAMES:
        k = np.flatnonzero((ctx.events["name"] == kname).to_numpy())
        if not len(k):
            continue
        p1 = ctx.rows_of_parent[k]
        p2 = np.where(p1 >= 0, ctx.rows_of_parent[np.maximum(p1, 0)], -1)
        inside = ((p1 >= 0) & mark[np.maximum(p1, 0)]) | ((p2 >= 0) & mark[np.maximum(p2, 0)])
        kernel_rows = k[inside]
        if len(kernel_rows):
            break
    kernel_src = kname if len(kernel_rows) else "op spans (no kernel events recorded)"
    if not len(kernel_rows):
        kernel_rows = flagged
    kernel = covered_spans_ns(ctx, ctx.start[kernel_rows], ctx.end[kernel_rows])
    overhead = max(0, region - kernel)
    if pct(overhead, ctx.wall) < th["min_pct"]:
        return
    rep = ctx.replay
    gain, conf = replay_gain(ctx, seg_factor=rep.seg_factor_in(rs, re_, kernel / max(region, 1)))
    graph_ops = int((is_op & ~C.name_flags(full, re.compile("^" + EAGER_PREFIX))).sum())
    names = top_names(ctx, flagged, 5)
    n = int(len(flagged))
    title = (f"{n:,} TensorFlow ops run eagerly one by one ({', '.join(names[:3])}): {F.ns(overhead)} "
             f"({pct(overhead, ctx.wall):.0f}% of end-to-end) is eager dispatch around {F.ns(kernel)} of kernels")
    yield make_finding(
        ctx, "tf_eager_ops", "launch_overhead", title,
        evidence={"eager_ops": n, "runs": int(len(first)), "region_ns": region, "kernel_ns": kernel,
                  "dispatch_ns": overhead, "dispatch_per_op_ns": overhead / max(n, 1), "kernel_source": kernel_src,
                  "graph_ops": graph_ops, "top_ops": names},
        ops=names,
        suggestion=("Run the model/step as a graph: wrap it in tf.function (@tf.function def step(x): return "
                    "model(x), or model.predict_on_batch / model.fit, which use one), with tensors, not Python "
                    "numbers, as arguments; TensorFlow then traces the Python once and runs the ops without "
                    "per-op dispatch (guide: https://www.tensorflow.org/guide/function)."),
        gain_ns=gain, method="eager dispatch: the eager ops' runs minus their kernels' run time, via "
        + METHOD_CP + " (upper bound: a tf.function call keeps a fixed per-call cost)",
        confidence=conf * 0.7, rows=flagged, affected_ns=overhead)


# -- TensorFlow: retracing --------------------------------------------------------------------------
def tf_retracing(ctx, th):
    """A ``tf.function`` traced again and again (``tf.function-graph_building`` spans inside its calls):
    called with new Python numbers, new shapes or dtypes, or re-created in a loop, so each call builds
    and instantiates a new graph. Gain: the retraces (all traces of a function but its first) are
    dropped: their graph building, and the set-up of the new concrete function's first run (its
    ``__inference_*`` span minus what ran inside it: graph optimisation and kernel creation), replayed
    away."""
    full = _full_name(ctx)
    names = ctx.events["name"]
    trace = np.flatnonzero((names == TRACE_NAME).to_numpy())
    if len(trace) < th["min_traces"]:
        return
    trace = trace[np.argsort(ctx.start[trace], kind="stable")]
    call = ctx.rows_of_parent[trace]
    fn = np.where(call >= 0, ctx.names(np.maximum(call, 0)).astype(object), "?")
    counts = pd.Series(fn).value_counts()
    hot = counts[counts >= th["min_traces"]]
    if not len(hot):
        return
    # the retraces: all traces of a function but its first
    retrace = pd.Series(fn).duplicated(keep="first").to_numpy() & np.isin(fn, hot.index.to_numpy())
    r_rows, r_call = trace[retrace], call[retrace]
    # the first run of each concrete function (__inference_*), inside a retracing call, after the trace
    setup_rows = np.zeros(0, dtype=np.int64)
    if full is not None:
        conc = np.flatnonzero(C.name_flags(full, CONCRETE_FN_RE))
        if len(conc):
            conc = conc[np.argsort(ctx.start[conc], kind="stable")]
            firsts = conc[~pd.Series(ctx.name_code[conc]).duplicated(keep="first").to_numpy()]
            calls = np.unique(r_call[r_call >= 0])
            cs, ce = ctx.start[calls], ctx.end[calls]
            order = np.argsort(cs, kind="stable")
            cs, ce = cs[order], ce[order]
            k = np.searchsorted(cs, ctx.start[firsts], side="right") - 1
            inside = (k >= 0) & (ctx.end[firsts] <= ce[np.maximum(k, 0)])
            setup_rows = firsts[inside]
    tracing = covered_spans_ns(ctx, ctx.start[r_rows], ctx.end[r_rows])
    kids = np.isin(ctx.rows_of_parent, setup_rows) if len(setup_rows) else np.zeros(ctx.n, bool)
    setup = int(ctx.dur[setup_rows].sum() - ctx.dur[kids].sum()) if len(setup_rows) else 0
    at_stake = tracing + max(setup, 0)
    if pct(at_stake, ctx.wall) < th["min_pct"]:
        return
    rep = ctx.replay
    m1 = np.zeros(ctx.n, dtype=bool)
    m1[r_rows] = True
    f = rep.seg_factor_for(m1, 0.0)
    if len(setup_rows):
        m2 = np.zeros(ctx.n, dtype=bool)
        m2[setup_rows] = True
        f = np.minimum(f, rep.seg_factor_for(m2, 0.0, include_descendants=False))
    gain, conf = replay_gain(ctx, seg_factor=f)
    fns = [str(x) for x in hot.index[:3]]
    n_re = int(retrace.sum())
    title = (f"tf.function {', '.join(fns)} traced {int(hot.iloc[0])} times: {n_re} retraces cost "
             f"{F.ns(at_stake)} ({pct(at_stake, ctx.wall):.0f}% of end-to-end) of graph building and set-up")
    yield make_finding(
        ctx, "tf_retracing", "compile", title,
        evidence={"functions": {str(k): int(v) for k, v in hot.items()}, "retraces": n_re, "tracing_ns": tracing,
                  "first_run_setup_ns": setup, "new_concrete_functions": int(len(setup_rows)),
                  "threshold_min_traces": th["min_traces"]},
        ops=fns,
        suggestion=("Trace once: pass tensors, not Python numbers, as the changing arguments "
                    "(step(x, tf.constant(lr)) instead of step(x, 0.01 * i)), give the function an "
                    "input_signature (tf.TensorSpec with None for dimensions that vary) or "
                    "reduce_retracing=True, and create the tf.function once, outside the loop "
                    "(guide: https://www.tensorflow.org/guide/function#controlling_retracing)."),
        gain_ns=gain, method="retraces' graph building and first-run set-up, via " + METHOD_CP,
        confidence=conf * 0.8, rows=np.concatenate([r_rows, setup_rows]), affected_ns=at_stake)


# -- MindSpore: PyNative op by op ----------------------------------------------------------------
def _is_mindspore(meta: dict) -> bool:
    coll = (meta.get("collectors") or {}).get("mindspore") or {}
    src = meta.get("source") or {}
    return coll.get("status") == "ok" or "mindspore" in meta or str(src.get("format", "")).startswith("mindspore")


def ms_pynative(ctx, th):
    """A MindSpore network run op by op in PyNative mode: many op launches under their bare names
    (``MatMul``, ``ReLU``; Graph mode writes scoped names such as ``Default/0-Dense/MatMul-op0``,
    ``@jit`` ``Default/MatMul-op0``). Each launch pays PyNative's per-op work (the Python of the cells,
    shape inference, kernel selection and resizing) that Graph mode does once when it compiles. Gain: in the
    runs of ops (gaps under ``gap_ns``) each launch keeps at most its op's typical (median) time, the
    rest replayed away; shape-blind (calls of one name with different shapes share one typical time),
    and Graph mode's own per-call cost is not subtracted."""
    if not _is_mindspore(ctx.profile.meta or {}):
        return
    full = _full_name(ctx)
    if full is None:
        return
    is_op = (ctx.events["cat"] == "op").to_numpy() & ctx.is_host
    bare = is_op & ~C.name_flags(full, re.compile("/"))
    n_bare = int(bare.sum())
    if n_bare < th["min_ops"]:
        return
    # the loop's ops: PyNative's bare launches and the small graphs it runs for some (Default/BiasAdd-op0);
    # ops of a compiled cell (a numbered scope: Default/0-Dense/...) are not PyNative's
    cand = np.flatnonzero(is_op & ~C.name_flags(full, re.compile(r"/\d+-[^/]+/")))
    srt, first, last, rs, re_ = _runs(ctx, cand, th["gap_ns"], 20)
    if not len(first):
        return
    flagged = _in_runs(srt, first, last)
    region = covered_spans_ns(ctx, rs, re_)
    d = ctx.dur[flagged].astype(float)
    codes = pd.Series(full.cat.codes.to_numpy()[flagged] if isinstance(full.dtype, pd.CategoricalDtype)
                      else full.to_numpy()[flagged])
    typical = pd.Series(d).groupby(codes.to_numpy()).transform("median").to_numpy()
    work = float(np.minimum(d, typical).sum())
    overhead = max(0.0, region - work)
    if pct(overhead, ctx.wall) < th["min_pct"]:
        return
    rep = ctx.replay
    gain, conf = replay_gain(ctx, seg_factor=rep.seg_factor_in(rs, re_, work / max(region, 1)))
    names = top_names(ctx, flagged, 5)
    n = int(len(flagged))
    title = (f"MindSpore runs {n:,} ops one by one in PyNative mode ({', '.join(names[:3])}): {F.ns(region)} of "
             f"op runs ({pct(region, ctx.wall):.0f}% of end-to-end) around an estimated {F.ns(work)} of op work")
    yield make_finding(
        ctx, "ms_pynative", "launch_overhead", title,
        evidence={"ops": n, "bare_name_ops": n_bare, "runs": int(len(first)), "region_ns": region,
                  "estimated_work_ns": work, "dispatch_ns": overhead, "top_ops": names,
                  "collector_mode": ((ctx.profile.meta.get("collectors") or {}).get("mindspore") or {}).get("mode")},
        ops=names,
        suggestion=("Compile the network: mindspore.set_context(mode=mindspore.GRAPH_MODE) before building it, "
                    "or decorate the step/construct with @mindspore.jit; Graph mode compiles the network once "
                    "and runs it without per-op Python and dispatch (MindSpore: 'Accelerating with Static "
                    "Graphs')."),
        gain_ns=gain, method="PyNative dispatch: the op runs minus each launch's op time capped at its median, via "
        + METHOD_CP + " (shape-blind; Graph mode's per-call cost not subtracted)",
        confidence=conf * 0.6, rows=flagged, affected_ns=overhead)
