"""Configuration sweeps: the same code profiled once per combination of settings, and how it scales.

    %%cann_profile -n cnn --sweep batch_size=1,8,32 --sweep dtype=float32,bfloat16 --repeat 3
    x = torch.randn(batch_size, 3, 224, 224, dtype=getattr(torch, dtype))
    model.to(x.dtype)(x)

runs the cell 6 times (every combination, in order), with ``batch_size`` and ``dtype`` set in the
notebook's namespace before each run; each run is a normal profile stored as
``NAME-batch_size=8-dtype=float32`` with ``meta["source"]["sweep"] = {group, variables, index, of}``;
the cell's output is a ``SweepResult``: the scaling table and a chart, the best configuration marked.

Values are Python literals when they parse as one (``1``, ``0.5``, ``True``, ``'a b'``), else strings
(``float32``: write ``getattr(torch, dtype)`` in the cell). The variables keep the last combination's
values after the sweep.

The scaling table (``scaling_table``), one row per run:
  ``time_ns``            the time of one run of the cell: the median step time with ``--repeat N``
                         (N >= 2) or ``cann_nb.step()`` marks, else the wall time
  ``items``              the value of the items variable (``--items VAR``; by default a variable named
                         like batch/batch_size/bs/n_items/items whose values are positive integers)
  ``time_per_item_ns``   ``time_ns / items`` (NaN without an items variable)
  ``throughput_per_s``   items per second (runs per second without an items variable)
  ``peak_memory_bytes``  the largest allocator peak over devices (``memory_device`` names it), or the
                         host's peak RSS when there is no allocator data (process-wide: it only grows)
  ``top_ops``            the three heaviest ops by self time with their shares; ``share:OP`` columns
                         give the shares of the sweep's overall top ops
  ``best``               True on the fastest configuration: least time per item, else least time
"""

from __future__ import annotations

import ast
import copy
import itertools
import keyword
import math
import re
import sys
from dataclasses import dataclass, field
from html import escape

import numpy as np
import pandas as pd

from .. import formatting as F
from ..errors import CannNbError

ITEMS_NAMES = ("batch_size", "batch", "bs", "n_items", "items", "num_items", "n", "size")
TOP_OPS = 3


class SweepError(CannNbError, ValueError):
    """A malformed --sweep specification."""


def parse_value(text: str):
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def parse_sweeps(specs) -> dict:
    """``["batch_size=1,8,32", "dtype=float32,bfloat16"]`` -> ``{"batch_size": [1, 8, 32], "dtype": [...]}``."""
    out: dict = {}
    for spec in specs or []:
        if "=" not in spec:
            raise SweepError(f"--sweep {spec!r}: expected VAR=V1,V2,... (e.g. batch_size=1,8,32)")
        name, _, values = spec.partition("=")
        name = name.strip()
        if not name.isidentifier() or keyword.iskeyword(name):
            raise SweepError(f"--sweep {spec!r}: {name!r} is not a Python variable name")
        if name in out:
            raise SweepError(f"--sweep {spec!r}: {name!r} is swept twice; give all its values in one --sweep")
        parts = [v for v in values.split(",")]
        if not values.strip() or any(not v.strip() for v in parts):
            raise SweepError(f"--sweep {spec!r}: empty value in {values!r}; separate values with commas")
        out[name] = [parse_value(v) for v in parts]
    if not out:
        raise SweepError("--sweep: nothing to sweep")
    return out


def combinations(sweeps: dict) -> list[dict]:
    names = list(sweeps)
    return [dict(zip(names, vals)) for vals in itertools.product(*(sweeps[n] for n in names))]


def _safe(value) -> str:
    return re.sub(r"[^A-Za-z0-9_.+\-]", "_", str(value)) or "_"


def run_name(base: str, combo: dict) -> str:
    """``cnn-batch_size=8-dtype=float32``: a valid store name (at most 128 characters)."""
    name = base + "".join(f"-{k}={_safe(v)}" for k, v in combo.items())
    if len(name) > 128:
        import hashlib

        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = name[:119] + "-" + digest
    return name


def guess_items(sweeps: dict) -> str | None:
    for cand in ITEMS_NAMES:
        for name, values in sweeps.items():
            if name.lower() == cand and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
                return name
    return None


# -- the table ------------------------------------------------------------------------------------
def _run_time(profile) -> tuple[float, str]:
    from ..analyze.comparison import step_spans

    spans = step_spans(profile)
    if len(spans) >= 2:
        return float(np.median(spans["dur_ns"].to_numpy(float))), f"median of {len(spans)} steps"
    return float(profile.wall_ns), "wall"


def _peak(profile) -> tuple[float, str]:
    from ..analyze.memory import peak_memory

    peaks = peak_memory(profile.memory, profile.counters)
    alloc = {d: v for d, v in peaks.items() if d != "host:rss"}
    if alloc:
        dev = max(alloc, key=alloc.get)
        return float(alloc[dev]), dev
    if "host:rss" in peaks:
        return float(peaks["host:rss"]), "host:rss"
    return math.nan, ""


def scaling_table(profiles, items: str | None = None, variables: list | None = None) -> pd.DataFrame:
    """One row per swept profile (see the module docstring for the columns)."""
    from ..analyze.hotspots import hotspots

    profiles = list(profiles)
    if variables is None:
        variables = []
        for p in profiles:
            for k in ((p.meta.get("source") or {}).get("sweep") or {}).get("variables", {}):
                if k not in variables:
                    variables.append(k)
    rows, shares = [], []
    for p in profiles:
        sw = ((p.meta.get("source") or {}).get("sweep") or {}).get("variables", {})
        t, how = _run_time(p)
        n_items = sw.get(items) if items else None
        n_items = float(n_items) if isinstance(n_items, (int, float)) and not isinstance(n_items, bool) \
            and n_items > 0 else math.nan
        peak, dev = _peak(p)
        hs = hotspots(p.events) if len(p.events) else pd.DataFrame(columns=["name", "share_pct", "cat"])
        host = hs[~hs["cat"].isin(("kernel", "memcpy", "memset", "comm"))] if len(hs) else hs
        dev_side = hs[hs["cat"].isin(("kernel", "memcpy", "memset", "comm"))] if len(hs) else hs
        side = dev_side if len(dev_side) else host  # device time when the run has a device, else host
        share = dict(zip(side["name"].astype(str), side["share_pct"].astype(float))) if len(side) else {}
        shares.append(share)
        top = sorted(share.items(), key=lambda kv: -kv[1])[:TOP_OPS]
        rows.append({
            **{v: sw.get(v) for v in variables},
            "profile": p.name, "status": p.status, "time_ns": t, "time_from": how,
            "items": n_items, "time_per_item_ns": t / n_items if math.isfinite(n_items) else math.nan,
            "throughput_per_s": (n_items if math.isfinite(n_items) else 1.0) / (t / 1e9) if t > 0 else math.nan,
            "peak_memory_bytes": peak, "memory_device": dev,
            "top_ops": ", ".join(f"{F.clip(n, 40)} {s:.0f}%" for n, s in top),
        })
    df = pd.DataFrame(rows)
    if not len(df):
        return df
    overall: dict = {}
    for share in shares:
        for n, s in share.items():
            overall[n] = overall.get(n, 0.0) + s
    for n in sorted(overall, key=lambda k: -overall[k])[:TOP_OPS]:
        df[f"share:{n}"] = [share.get(n, 0.0) for share in shares]
    key = "time_per_item_ns" if df["time_per_item_ns"].notna().any() else "time_ns"
    ok = (df["status"] == "ok") & df[key].notna()
    df["best"] = False
    if ok.any():
        df.loc[df.loc[ok, key].idxmin(), "best"] = True
    return df


@dataclass
class SweepResult:
    """The profiles of a sweep and their scaling table; displays as a table and a chart."""

    name: str
    variables: list
    profiles: list
    items: str | None = None
    notes: list = field(default_factory=list)

    def __post_init__(self):
        self.table = scaling_table(self.profiles, self.items, self.variables)

    @property
    def best(self):
        """The best configuration's row (a Series), or None."""
        if not len(self.table) or not self.table["best"].any():
            return None
        return self.table[self.table["best"]].iloc[0]

    def __getitem__(self, i):
        return self.profiles[i]

    def __len__(self):
        return len(self.profiles)

    def summary_text(self) -> str:
        t = self.table
        lines = [f"cann_nb sweep {self.name!r}: {len(self.profiles)} configurations of "
                 f"{', '.join(self.variables) or '(none)'}" + (f"; items = {self.items}" if self.items else "")]
        if not len(t):
            lines.append("  no runs")
        else:
            rows = []
            for r in t.to_dict("records"):
                rows.append([("* " if r["best"] else "  ") + ", ".join(f"{v}={r[v]}" for v in self.variables),
                             F.ns(r["time_ns"]), F.ns(r["time_per_item_ns"]) if self.items else "-",
                             f"{r['throughput_per_s']:.4g}/s" if math.isfinite(r["throughput_per_s"]) else "-",
                             F.nbytes(r["peak_memory_bytes"]) + (f" ({r['memory_device']})" if r["memory_device"] else ""),
                             r["top_ops"], r["status"]])
            lines.append(F.table(rows, ["configuration", "time", "per item", "throughput", "peak memory", "top ops",
                                        "status"], right={1, 2, 3}))
            b = self.best
            if b is not None:
                what = "time per item" if self.items else "time per run"
                lines.append(f"  best ({what}): " + ", ".join(f"{v}={b[v]}" for v in self.variables)
                             + f" -> profile {b['profile']!r}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        t = self.table
        head = (f"<div class='cann-nb-sweep' style='font:12px system-ui,sans-serif'><b>cann_nb sweep "
                f"{escape(self.name)}</b>: {len(self.profiles)} configurations")
        if not len(t):
            return head + "</div>"
        cols = ["time", "per item", "throughput", "peak memory", "top ops", "status"]
        body = ["<table style='border-collapse:collapse'><tr>"
                + "".join(f"<th style='text-align:left;padding:2px 8px'>{escape(c)}</th>"
                          for c in self.variables + cols) + "</tr>"]
        for r in t.to_dict("records"):
            style = " style='background:#e6f4ea;font-weight:bold'" if r["best"] else ""
            cells = [escape(str(r[v])) for v in self.variables] + [
                escape(F.ns(r["time_ns"])), escape(F.ns(r["time_per_item_ns"]) if self.items else "-"),
                escape(f"{r['throughput_per_s']:.4g}/s" if math.isfinite(r["throughput_per_s"]) else "-"),
                escape(F.nbytes(r["peak_memory_bytes"])), escape(r["top_ops"]), escape(r["status"])]
            body.append(f"<tr{style}>" + "".join(f"<td style='padding:2px 8px'>{c}</td>" for c in cells) + "</tr>")
        body.append("</table>")
        notes = "".join(f"<div>note: {escape(n)}</div>" for n in self.notes)
        return head + "".join(body) + self.chart_svg() + notes + "</div>"

    def chart_svg(self, width: int = 560) -> str:
        """A static bar chart of time per item (or per run) per configuration, the best in green."""
        t = self.table
        key = "time_per_item_ns" if self.items and t["time_per_item_ns"].notna().any() else "time_ns"
        vals = t[key].to_numpy(float)
        if not len(vals) or not np.isfinite(vals).any():
            return ""
        vmax = float(np.nanmax(vals)) or 1.0
        bar_h, gap, label_w = 18, 6, 200
        h = len(vals) * (bar_h + gap) + 30
        title = "time per item" if key == "time_per_item_ns" else "time per run"
        parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{h}' role='img' "
                 f"aria-label='{escape(title)}' style='font:11px system-ui,sans-serif'>",
                 f"<text x='0' y='12'>{escape(title)} per configuration (shorter is better)</text>"]
        for i, (r, v) in enumerate(zip(t.to_dict("records"), vals)):
            y = 20 + i * (bar_h + gap)
            label = ", ".join(f"{k}={r[k]}" for k in self.variables)
            w = 0 if not math.isfinite(v) else max(1, int((width - label_w - 90) * v / vmax))
            color = "#59a14f" if r["best"] else "#4e79a7"
            parts.append(f"<text x='0' y='{y + 13}'>{escape(F.clip(label, 32))}</text>")
            parts.append(f"<rect x='{label_w}' y='{y}' width='{w}' height='{bar_h}' fill='{color}'/>")
            parts.append(f"<text x='{label_w + w + 4}' y='{y + 13}'>{escape(F.ns(v))}"
                         f"{' best' if r['best'] else ''}</text>")
        parts.append("</svg>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.summary_text(), "text/html": self._repr_html_()}

    def __repr__(self) -> str:
        return f"<SweepResult {self.name!r}: {len(self.profiles)} runs>"


def from_store(group: str, store=None) -> SweepResult:
    """Rebuild a stored sweep's result from the store (the profiles whose sweep group is ``group``)."""
    from ..errors import CannNbError
    from ..store import Session

    session = Session(store)
    profiles = []
    for name in session.names():
        try:
            p = session[name]
        except CannNbError:  # an unreadable profile is not part of any sweep; the others still are
            continue
        sw = ((getattr(p, "meta", {}) or {}).get("source") or {}).get("sweep") or {}
        if sw.get("group") == group:
            profiles.append(p)
    if not profiles:
        raise SweepError(f"no sweep {group!r} in {session.root}")
    profiles.sort(key=lambda p: p.meta["source"]["sweep"].get("index", 0))
    sw = profiles[0].meta["source"]["sweep"]
    variables = list(sw.get("variables", {}))
    return SweepResult(group, variables, profiles, items=sw.get("items"))


# -- the magic's loop -----------------------------------------------------------------------------
def run_in_shell(runtime, args, cell: str) -> SweepResult:
    """Run a ``%%cann_profile --sweep`` cell once per combination (called by the cell magic).

    Each run goes through the normal profiled-cell path (the cell rewrite, begin/stop/end and the
    store), with the sweep variables set in the user namespace first; IPython runs it silently (no
    Out[] per run) and the result table is the cell's output. A run that raises stops the sweep
    after storing its (failed) profile; the table shows the runs so far."""
    shell = runtime.shell
    sweeps = parse_sweeps(args.sweep)
    combos = combinations(sweeps)
    items = getattr(args, "items", None) or guess_items(sweeps)
    if items is not None and items not in sweeps:
        raise SweepError(f"--items {items!r}: not one of the swept variables ({', '.join(sweeps)})")
    number = runtime.cell_number()       # the sweep cell's In [N] (each run below is a silent cell of its own)
    base = args.name or f"sweep_{number}"
    profiles, notes = [], []
    for i, combo in enumerate(combos):
        shell.user_ns.update(combo)
        a = copy.copy(args)
        a.sweep, a.display, a.name, a.cell_number = None, False, run_name(base, combo), number
        a.sweep_point = {"group": base, "variables": combo, "index": i, "of": len(combos), "items": items}
        runtime.last = None
        runtime.pending = a
        outer = getattr(shell.displayhook, "exec_result", None)  # the sweep cell's own result
        try:
            result = shell.run_cell(cell, store_history=False, silent=True)
        finally:
            shell.displayhook.exec_result = outer
        runtime.pending = runtime.armed = None
        runtime.finalize()
        if runtime.last is not None and getattr(runtime.last, "name", None) == a.name:
            profiles.append(runtime.last)
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            notes.append(f"stopped at {', '.join(f'{k}={v}' for k, v in combo.items())}: "
                         f"{type(error).__name__}: {error}")
            break
    if "host:rss" in {_peak(p)[1] for p in profiles}:
        notes.append("peak memory is the process's RSS (no allocator data): it only grows during a sweep")
    if len(profiles) < len(combos):
        print(f"cann_nb: sweep {base!r}: {len(profiles)} of {len(combos)} runs stored", file=sys.stderr)
    return SweepResult(base, list(sweeps), profiles, items=items, notes=notes)
