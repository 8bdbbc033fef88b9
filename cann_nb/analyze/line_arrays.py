"""The arrays the Python tracer sampled on the user's lines and functions (collect/line_arrays.py), as a
table joined to their spans: what numpy/pandas work a line's time was spent on."""

from __future__ import annotations

import numpy as np
import pandas as pd


def line_arrays(ctx) -> pd.DataFrame:
    """One row per sampled line (or function, scope "call"): file_line, runs, in_bytes (arrays it reads),
    kept_bytes and temporaries_bytes (NaN where not measured), operands (the sampled descriptions), rows
    (its spans in the events, in start order)."""
    return ctx.memo("line_arrays", lambda: _line_arrays(ctx))


def _line_arrays(ctx) -> pd.DataFrame:
    recs = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("line_arrays") or []
    if not recs or not ctx.n or "file_line" not in ctx.events:
        return pd.DataFrame(columns=["file_line", "runs", "in_bytes", "kept_bytes", "temporaries_bytes",
                                     "operands", "rows"])
    ev = ctx.events
    kind = ev["call_kind"].astype(str).to_numpy() if "call_kind" in ev else np.full(ctx.n, "", dtype=object)
    places = ev["file_line"].astype(str).to_numpy()
    rows_of: dict[tuple, np.ndarray] = {}
    wanted = list({r["file_line"] for r in recs})
    # a line's record goes with its line spans; a function's (scope "call", its arguments) with its calls
    idx = np.flatnonzero(np.isin(kind, ["line", "py"]) & np.isin(places, wanted))
    idx = idx[np.argsort(ctx.start[idx], kind="stable")]
    for (k, place), grp in pd.Series(idx).groupby([kind[idx], places[idx]]):
        rows_of[(str(k), str(place))] = grp.to_numpy()
    out = []
    for r in recs:
        rows = rows_of.get(("py" if r.get("scope") == "call" else "line", r["file_line"]), np.empty(0, dtype=np.int64))
        ops = r.get("operands") or []
        ins = sum(o.get("nbytes", 0) for o in ops if o.get("role") == "in")
        out.append({"file_line": r["file_line"], "runs": r.get("runs", 0), "in_bytes": float(ins),
                    "kept_bytes": _num(r.get("kept_bytes")), "temporaries_bytes": _num(r.get("temporaries_bytes")),
                    "traced_run": r.get("traced_run"), "operands": ops, "work": r.get("work"),
                    "contractions": r.get("contractions"), "scope": r.get("scope", "line"),
                    "same_work": r.get("same_work"), "work_input_bytes": r.get("work_input_bytes", 0),
                    "work_makes_data": r.get("work_makes_data", False),
                    "same_inputs": r.get("same_inputs") or [], "rows": rows})
    return pd.DataFrame(out)


def line_function(ctx, rec) -> int:
    """The name code of the function a sampled line's first span ran in (-1 at module level): lines of one
    function share it, so a name read on one line and written on another is the same variable."""
    p = int(ctx.rows_of_parent[rec["rows"][0]])
    return int(ctx.name_code[p]) if p >= 0 else -1


def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) else float("nan")


def traced_run_excess(ctx) -> np.ndarray:
    """ns the tracer's memory measurement added to each span it ran on (one run per sampled line or
    function): that span's time less the median of the same line's other runs; 0 where it ran once."""
    extra = np.zeros(ctx.n)
    la = line_arrays(ctx)
    for rows, k in zip(la["rows"], la["traced_run"]) if len(la) else ():
        if k is None or not np.isfinite(k) or len(rows) < 3 or int(k) >= len(rows):
            continue
        k = int(k)
        others = np.delete(ctx.dur[rows], k)
        extra[rows[k]] = max(0.0, float(ctx.dur[rows[k]]) - float(np.median(others)))
    return _own_excess(ctx, extra)


def _own_excess(ctx, raw: np.ndarray) -> np.ndarray:
    """A traced run inside another sampled line's traced run (a line of the function that line calls) is
    in that run's excess too: each run keeps its excess less that of the nearest traced runs inside it, so
    nothing is charged twice (a 3-run loop calling a function whose allocating line tracemalloc slowed
    sevenfold was charged 2.1 s of a 3.1 s profile)."""
    traced = np.flatnonzero(raw > 0)
    if len(traced) < 2:
        return raw
    from .timeline import nearest_ancestor
    at = nearest_ancestor(ctx, traced, raw > 0)
    own = raw.copy()
    inner = at >= 0
    np.subtract.at(own, at[inner], raw[traced[inner]])
    return np.maximum(own, 0.0)


def line_arrays_table(profile) -> pd.DataFrame:
    """For users: one row per sampled line or function, with its time in the profile and the arrays it
    touched (``name kind shape dtype order``), largest time first."""
    from .context import context
    ctx = context(profile)
    la = line_arrays(ctx)
    cols = ["file_line", "scope", "spans", "time_ns", "in_bytes", "kept_bytes", "temporaries_bytes", "work", "operands"]
    if la.empty:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame({
        "file_line": la["file_line"], "scope": la["scope"],
        "spans": [len(r) for r in la["rows"]],
        "time_ns": [int(ctx.dur[r].sum()) for r in la["rows"]],
        "in_bytes": la["in_bytes"], "kept_bytes": la["kept_bytes"], "temporaries_bytes": la["temporaries_bytes"],
        "work": [", ".join(w) if isinstance(w, list) else "" for w in la["work"]],
        "operands": ["; ".join(f"{o['name']} {o['kind']} {tuple(o['shape'])} {o['dtype']} {o['order']}"
                               for o in ops) for ops in la["operands"]],
    })
    return out.sort_values("time_ns", ascending=False, kind="stable").reset_index(drop=True)
