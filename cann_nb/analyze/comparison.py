"""Before/after comparison of two profiles: per-op deltas, buckets, end-to-end, memory, devices, findings.

    cmp = cann_nb.compare("before", "after")        # names in the store, paths, or Profiles
    cmp.ops                                          # per op (by name): base/new count, total, mean, delta, p
    cmp.e2e, cmp.steps, cmp.memory, cmp.devices, cmp.findings
    cmp.to_dict()                                    # what ``cann-nb compare A B --json`` prints

Direction, everywhere: ``delta = new - base`` (positive = slower / larger), ``delta_pct = 100 * delta /
base``, ``ratio = new / base`` (> 1 = slower / larger). "base" is the first argument, "new" the second.

Ops are aligned three ways: by ``name`` (and category), by ``name+shapes`` and by ``module``, each with
the columns ``base_count, new_count, base_total_ns, new_total_ns, base_mean_ns, new_mean_ns,
base_self_ns, new_self_ns, delta_ns, delta_ms, delta_pct, ratio, delta_count, p_value, significant,
bucket``. A name present on one side only is ``added`` / ``removed``; otherwise it is ``slower`` or
``faster`` when the change of its total time is an effect worth reporting, else ``unchanged``:

* the effect: ``|delta_pct| >= min_effect_pct`` (default 5 %) and ``|delta_ns| >= min_share_pct``
  (default 0.1 %) of the base end-to-end time (at least 1 us), so tiny ops do not flood the list;
* significance, when both profiles have at least 2 steps (``--repeat N``, ``cann_nb.step()``,
  ``ProfilerStep#N``): each op's time per step gives two samples and a two-sided test (Welch's t-test
  by default, see significance.py) must give ``p < alpha`` (default 0.05); a change that is not
  significant is ``unchanged`` however large, because it is within the run-to-run noise. Without
  steps on both sides significance is unknown (``p_value`` NaN, ``significant`` NA) and says so.
  A cold first step (>= 3 steps, the first the slowest and over 1.2x the median of the rest) is left
  out of the samples; when the two profiles' first steps differ by more than the minimum effect of a
  quantity's base total, that quantity's significance is unknown (one sample per side cannot be
  tested), and so it is when less than 90 % of it lies inside the steps (setup, teardown).

When the two profiles have different numbers of steps, counts and totals are divided by the number
of steps of their profile (per-step values), and the end-to-end time is the mean step time.

Sources need not match: a CPU profile collected here compares with an Ascend or Kineto import; ops
align where their names (and categories) match, the rest shows as added/removed, and the per-device
table lists each side's devices.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import significance as sig
from .. import formatting as F
from ..errors import CannNbError
from ..model import render

VIEWS = ("name", "name+shapes", "module")
VIEW_KEYS = {"name": ["name"], "name+shapes": ["name", "shapes"], "module": ["module"]}
BUCKETS = ("slower", "faster", "added", "removed", "unchanged")
DEFAULT_MIN_EFFECT_PCT = 5.0
DEFAULT_MIN_SHARE_PCT = 0.1
MIN_EFFECT_FLOOR_NS = 1_000
STEP_COVERAGE = 0.9   # samples per step judge a quantity only when >= 90 % of it lies inside the steps
DIRECTION = ("delta = new - base (positive = slower / larger); delta_pct = 100 * delta / base; "
             "ratio = new / base (> 1 = slower / larger)")
OP_COLUMNS = ["cat", "base_count", "new_count", "base_total_ns", "new_total_ns", "base_mean_ns", "new_mean_ns",
              "base_self_ns", "new_self_ns", "delta_ns", "delta_ms", "delta_pct", "ratio", "delta_count",
              "p_value", "significant", "bucket"]


class CompareInputError(CannNbError, ValueError):
    """A bad argument to compare: an unknown test or view, or alpha outside (0, 1)."""


# -- the result -------------------------------------------------------------------------------------
@dataclass
class Comparison:
    """The result of ``compare(base, new)``; see the module docstring for every column's meaning."""

    base: object
    new: object
    tables: dict                      # view -> per-op DataFrame
    e2e: dict
    steps: dict
    memory: pd.DataFrame
    devices: pd.DataFrame
    findings: dict                    # appeared / resolved / persisted: lists of dicts
    settings: dict                    # test, alpha, min effect, steps, normalisation
    notes: list = field(default_factory=list)
    recorded: list = field(default_factory=list)   # track-record entries written by this comparison

    @property
    def ops(self) -> pd.DataFrame:
        """Per-op comparison by name (and category), largest |delta| first."""
        return self.tables["name"]

    def table(self, by: str = "name", bucket: str | None = None) -> pd.DataFrame:
        df = self.tables[by]
        return df[df["bucket"] == bucket].reset_index(drop=True) if bucket else df

    def buckets(self, by: str = "name") -> dict:
        counts = self.tables[by]["bucket"].value_counts()
        return {b: int(counts.get(b, 0)) for b in BUCKETS}

    @property
    def labels(self) -> tuple[str, str]:
        """(base, new) as every view names them (see ``labels``)."""
        return labels(self.base, self.new)

    @property
    def slower(self) -> pd.DataFrame:
        return self.table("name", "slower")

    @property
    def faster(self) -> pd.DataFrame:
        return self.table("name", "faster")

    # -- machine-readable ----------------------------------------------------------------------
    def to_dict(self, top: int | None = None) -> dict:
        """JSON-ready: ``base``, ``new``, ``direction``, ``significance``, ``e2e``, ``steps``, ``buckets``,
        ``ops`` (by name), ``ops_by_shapes``, ``ops_by_module``, ``memory``, ``devices``, ``findings``,
        ``notes``, ``recorded``."""
        from .api import json_safe

        def rows(df):
            df = df.head(top) if top else df
            recs = df.astype(object).where(pd.notna(df), None).to_dict("records")
            return json_safe(recs)

        return json_safe({
            "base": _identity(self.base), "new": _identity(self.new),
            "direction": DIRECTION,
            "significance": self.settings,
            "e2e": self.e2e, "steps": self.steps,
            "buckets": {v: self.buckets(v) for v in self.tables},
            "ops": rows(self.tables["name"]),
            "ops_by_shapes": rows(self.tables.get("name+shapes", pd.DataFrame())),
            "ops_by_module": rows(self.tables.get("module", pd.DataFrame())),
            "memory": rows(self.memory), "devices": rows(self.devices),
            "findings": self.findings, "notes": self.notes, "recorded": self.recorded,
        })

    # -- for people (renderers registered by the view layer: widgets/static.py, widgets/views.py) ----
    def summary_text(self, top: int = 10, by: str = "name") -> str:
        return render("comparison.text", self, top=top, by=by)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The diff view with its text/plain and static text/html fallbacks (a cell's last value)."""
        return render("comparison.bundle", self)

    def __repr__(self) -> str:
        c = self.buckets()
        return (f"<Comparison {self.labels[0]!r} -> {self.labels[1]!r}: e2e "
                f"{F.pct(self.e2e['delta_pct'])}, {c['slower']} slower, {c['faster']} faster, "
                f"{c['added']} added, {c['removed']} removed>")


def label(profile, default: str) -> str:
    name = getattr(profile, "name", "") or default
    version = (getattr(profile, "meta", {}) or {}).get("version")
    return f"{name}" if not version or version == 1 else f"{name} (v{version})"


def labels(base, new) -> tuple[str, str]:
    """How every view names the two sides. Two versions of one name both carry their version
    ('nightly (v1)' -> 'nightly (v2)'), and two sides that would still read the same say which is which."""
    b, n = label(base, "base"), label(new, "new")
    if getattr(base, "name", None) == getattr(new, "name", None):
        b, n = (_versioned(base, "base"), _versioned(new, "new"))
    return (f"{b} (base)", f"{n} (new)") if b == n else (b, n)


def _versioned(profile, default: str) -> str:
    name = getattr(profile, "name", "") or default
    version = (getattr(profile, "meta", {}) or {}).get("version")
    return f"{name} (v{version})" if version else name


def _identity(profile) -> dict:
    meta = profile.meta or {}
    src = meta.get("source") or {}
    return {"name": profile.name, "version": meta.get("version"), "created": meta.get("created"),
            "status": meta.get("status"), "source": src.get("kind") if isinstance(src, dict) else src,
            "wall_ns": int(profile.wall_ns), "events": int(len(profile.events)),
            "devices": sorted({str(d) for d in profile.events["device"].dropna().unique()})}


def verdict_text(e: dict, s: dict) -> str:
    if e.get("p_value") is None or not math.isfinite(e["p_value"]):
        return "(significance unknown: " + s["unknown_reason"] + ")" if s.get("unknown_reason") else ""
    word = "significant" if e["significant"] else "not significant"
    return f"{word} ({s['test_name']} p={F.pvalue(e['p_value'])}, {s['n_base']} vs {s['n_new']} steps)"


# -- the computation -------------------------------------------------------------------------------
def step_spans(profile) -> pd.DataFrame:
    """Recorded step spans (cat ``step`` or ``ProfilerStep#N``); never inferred, so that a comparison
    only claims significance from iterations that were really marked."""
    from .steps import steps

    if not len(profile.events):
        return pd.DataFrame({"start_ns": np.empty(0, np.int64), "end_ns": np.empty(0, np.int64),
                             "dur_ns": np.empty(0, np.int64)})
    st = steps(profile, infer=False)
    return st[["start_ns", "end_ns", "dur_ns"]].reset_index(drop=True)


DENSE_LIMIT = 50_000_000   # ops x steps cells of per-step samples (float64: 400 MB) at most


def _per_step(events: pd.DataFrame, by: str, spans: pd.DataFrame) -> pd.DataFrame | None:
    """Each op's time in each step: index = keys + cat (strings, "" for missing, as hotspots() builds
    them), columns = step 0..n-1 (0 where absent).

    An event counts in a step for the part of it that overlaps the step, so a span that covers
    several steps (an outer loop frame) adds its share to each, and time between steps counts in none.
    Vectorised on category codes: strings are built only for the distinct keys.
    """
    from .hotspots import DEVICE_CATS, HOST_CATS

    n = len(spans)
    cols = VIEW_KEYS[by] + ["cat"]
    if not len(events):
        return pd.DataFrame(np.zeros((0, n)), index=pd.MultiIndex.from_arrays([[]] * len(cols), names=cols),
                            columns=range(n))
    mask = events["cat"].isin(HOST_CATS + DEVICE_CATS).to_numpy()
    if by == "module":
        mask = mask & events["module"].notna().to_numpy()
    sel = np.flatnonzero(mask)
    codes, categories = [], []
    for c in cols:
        col = events[c]
        if not isinstance(col.dtype, pd.CategoricalDtype):
            col = col.astype("category")
        codes.append(col.cat.codes.to_numpy()[sel].astype(np.int64) + 1)   # 0 = missing
        categories.append(np.asarray(col.cat.categories.astype(str), dtype=object))
    combined = codes[0]
    for cd, ct in zip(codes[1:], categories[1:]):
        combined = combined * (len(ct) + 1) + cd
    key, uniq = pd.factorize(combined)
    s = events["start_ns"].to_numpy()[sel].astype(np.int64)
    e = s + events["dur_ns"].to_numpy()[sel].astype(np.int64)
    starts, ends = spans["start_ns"].to_numpy().astype(np.int64), spans["end_ns"].to_numpy().astype(np.int64)
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    k0 = np.maximum(np.searchsorted(starts, s, side="right") - 1, 0)
    k1 = np.searchsorted(starts, e, side="left") - 1
    count = np.maximum(k1 - k0 + 1, 0)
    rows = np.repeat(np.arange(len(s)), count)
    first = np.repeat(np.cumsum(count) - count, count)
    k = k0[rows] + (np.arange(len(rows)) - first)
    overlap = np.minimum(e[rows], ends[k]) - np.maximum(s[rows], starts[k])
    live = overlap > 0
    rows, k, overlap = rows[live], k[live], overlap[live].astype(float)
    # decode the distinct keys back into strings
    rem = np.asarray(uniq, dtype=np.int64)
    parts = []
    for ct in reversed(categories[1:]):
        parts.append(rem % (len(ct) + 1))
        rem = rem // (len(ct) + 1)
    parts.append(rem)
    parts.reverse()
    labels = [np.where(p > 0, ct[np.maximum(p - 1, 0)], "") if len(ct) else np.full(len(p), "", dtype=object)
              for p, ct in zip(parts, categories)]
    index = pd.MultiIndex.from_arrays(labels, names=cols)
    if len(uniq) * n > DENSE_LIMIT:
        return None   # too many ops x steps to hold: per-op significance stays unknown (compare says so)
    mat = np.bincount(key[rows] * n + k, weights=overlap, minlength=len(uniq) * n).reshape(len(uniq), n)
    return pd.DataFrame(mat, index=index, columns=range(n))


def _aggregate(events: pd.DataFrame, by: str) -> pd.DataFrame:
    from .hotspots import hotspots

    keys = VIEW_KEYS[by]
    cols = keys + ["cat", "count", "total_ns", "self_ns"]
    if not len(events):
        return pd.DataFrame({c: pd.Series(dtype=object if c in keys + ["cat"] else float) for c in cols})
    hs = hotspots(events, by=by)
    if not len(hs):
        return pd.DataFrame({c: pd.Series(dtype=object if c in keys + ["cat"] else float) for c in cols})
    return hs[cols]


def _op_table(base, new, by: str, b_spans, n_spans, scale_b: float, scale_n: float, floor_ns: float,
              use_steps: bool, test: str, alpha: float, min_effect_pct: float, notes: list) -> pd.DataFrame:
    keys = VIEW_KEYS[by] + ["cat"]
    a = _aggregate(base.events, by)
    b = _aggregate(new.events, by)
    m = pd.merge(a, b, on=keys, how="outer", suffixes=("_b", "_n"))
    out = m[keys].copy()
    for side, suf, scale in (("base", "_b", scale_b), ("new", "_n", scale_n)):
        cnt = m[f"count{suf}"].fillna(0).to_numpy(float)
        tot = m[f"total_ns{suf}"].fillna(0).to_numpy(float)
        out[f"{side}_count"] = cnt * scale
        out[f"{side}_total_ns"] = tot * scale
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"{side}_mean_ns"] = np.where(cnt > 0, tot / np.where(cnt > 0, cnt, 1), np.nan)
        out[f"{side}_self_ns"] = m[f"self_ns{suf}"].fillna(0).to_numpy(float) * scale
    bt, nt = out["base_total_ns"].to_numpy(), out["new_total_ns"].to_numpy()
    delta = nt - bt
    out["delta_ns"] = delta
    out["delta_ms"] = delta / 1e6
    with np.errstate(divide="ignore", invalid="ignore"):
        out["delta_pct"] = np.where(bt > 0, 100.0 * delta / np.where(bt > 0, bt, 1), np.nan)
        out["ratio"] = np.where(bt > 0, nt / np.where(bt > 0, bt, 1), np.nan)
    out["delta_count"] = out["new_count"] - out["base_count"]
    p = np.full(len(out), np.nan)
    if use_steps and len(out):
        pb = _per_step(base.events, by, b_spans)
        pn = _per_step(new.events, by, n_spans)
        idx = pd.MultiIndex.from_frame(out[keys])
        sb = pb.reindex(idx, fill_value=0).to_numpy(float) if pb is not None else None
        sn = pn.reindex(idx, fill_value=0).to_numpy(float) if pn is not None else None
        if sb is None or sn is None:
            notes.append(f"ops by {by}: too many ops x steps (> {DENSE_LIMIT:,}) for per-op significance")
        else:
            keep_b, keep_n = steady(b_spans), steady(n_spans)
            p = sig.p_values(sb[:, keep_b], sn[:, keep_n], test)
            # an op whose time lies mostly outside the steps (setup, teardown) cannot be judged from its
            # per-step samples, nor one whose time in a left-out cold first step changed notably
            raw_b = m["total_ns_b"].fillna(0).to_numpy(float)
            raw_n = m["total_ns_n"].fillna(0).to_numpy(float)
            judged = _covered(sb.sum(axis=1), raw_b) & _covered(sn.sum(axis=1), raw_n)
            if not (keep_b[0] and keep_n[0]):
                judged &= ~_cold_changed(sb[:, 0], sn[:, 0], raw_b, min_effect_pct)
            p = np.where(judged, p, np.nan)
    out["p_value"] = p
    significant = pd.array(np.where(np.isfinite(p), p < alpha, False), dtype="boolean")
    significant[~np.isfinite(p)] = pd.NA
    out["significant"] = significant
    bc, nc = out["base_count"].to_numpy(), out["new_count"].to_numpy()
    effect = (np.abs(np.nan_to_num(out["delta_pct"].to_numpy(), nan=0.0)) >= min_effect_pct) & \
             (np.abs(delta) >= floor_ns)
    sig_ok = np.where(np.isfinite(p), p < alpha, True)  # unknown significance: the effect decides
    bucket = np.full(len(out), "unchanged", dtype=object)
    changed = effect & sig_ok & (bc > 0) & (nc > 0)
    bucket[changed & (delta > 0)] = "slower"
    bucket[changed & (delta < 0)] = "faster"
    bucket[(bc == 0) & (nc > 0)] = "added"
    bucket[(nc == 0) & (bc > 0)] = "removed"
    out["bucket"] = bucket
    order = np.argsort(-np.abs(delta), kind="stable")
    return out.iloc[order].reset_index(drop=True)[VIEW_KEYS[by] + OP_COLUMNS]


COLD_FACTOR = 1.2     # a first step this much slower than the median of the rest is a cold start:
                      # it is left out of the samples (if the first steps of the two profiles differ by
                      # more than the minimum effect, that quantity's significance is unknown instead)


def steady(spans: pd.DataFrame) -> np.ndarray:
    """Which steps are samples of the steady state: all, except a cold first step (at least 3 steps, the
    first the slowest and over COLD_FACTOR x the median of the others: imports, caches, allocator and
    kernel warm-up), which would otherwise inflate the variance and hide real changes."""
    d = spans["dur_ns"].to_numpy(float) if len(spans) else np.empty(0)
    mask = np.ones(len(d), dtype=bool)
    if len(d) >= 3 and d[0] > d[1:].max() and d[0] > COLD_FACTOR * np.median(d[1:]):
        mask[0] = False
    return mask


def _cold_changed(first_b, first_n, total_b, min_effect_pct: float) -> np.ndarray:
    """True where the first steps (one of them a left-out cold start) differ by more than the minimum
    effect of the base total: a change there is one sample per side, which no test can judge."""
    first_b, first_n, total_b = (np.asarray(x, float) for x in (first_b, first_n, total_b))
    return np.abs(first_n - first_b) > (min_effect_pct / 100.0) * total_b


def _covered(in_steps, total) -> np.ndarray:
    """True where at least STEP_COVERAGE of ``total`` lies inside the steps (or there is no time)."""
    in_steps, total = np.asarray(in_steps, float), np.asarray(total, float)
    return (total <= 0) | (in_steps >= STEP_COVERAGE * total)


def steps_cover_wall(profile, spans: pd.DataFrame) -> float:
    """The fraction of the profile's end-to-end time inside its steps."""
    wall = float(profile.wall_ns)
    if wall <= 0 or not len(spans):
        return 0.0
    s, e = spans["start_ns"].to_numpy(), spans["end_ns"].to_numpy()
    from .intervals import union

    us, ue = union(s, e)
    return min(float((np.asarray(ue) - np.asarray(us)).sum()) / wall, 1.0)


def _step_summary(spans: pd.DataFrame) -> dict:
    d = spans["dur_ns"].to_numpy(float) if len(spans) else np.empty(0)
    if not len(d):
        return {"n": 0}
    return {"n": int(len(d)), "median_ns": float(np.median(d)), "mean_ns": float(d.mean()),
            "p99_ns": float(np.percentile(d, 99)), "min_ns": float(d.min()), "max_ns": float(d.max()),
            "std_ns": float(d.std(ddof=1)) if len(d) > 1 else 0.0}


def _accel(devs) -> list:
    return [d for d in devs if d not in ("cpu", "host:rss") and not str(d).startswith("host")]


def device_alignment(base, new) -> dict:
    """{new device: base device} when each profile has one accelerator of the same kind under another
    index (rank 0 on npu:0 vs rank 1 on npu:1): they are compared with each other."""
    db = _accel(sorted({str(d) for d in base.events["device"].dropna().unique()}))
    dn = _accel(sorted({str(d) for d in new.events["device"].dropna().unique()}))
    if len(db) == 1 and len(dn) == 1 and db != dn and _device_kind(db[0]) == _device_kind(dn[0]):
        return {dn[0]: db[0]}
    return {}


def _memory_table(base, new, align: dict) -> pd.DataFrame:
    from .memory import peak_memory

    pb = peak_memory(base.memory, base.counters)
    pn = {align.get(k, k): v for k, v in peak_memory(new.memory, new.counters).items()}
    devs = sorted(set(pb) | set(pn))
    rows = []
    for d in devs:
        b, n = pb.get(d, np.nan), pn.get(d, np.nan)
        rows.append({"device": d, "base_peak_bytes": float(b), "new_peak_bytes": float(n),
                     "delta_bytes": float(n - b),
                     "delta_pct": 100.0 * (n - b) / b if b and np.isfinite(b) and np.isfinite(n) else np.nan,
                     "ratio": n / b if b and np.isfinite(b) else np.nan})
    return pd.DataFrame(rows, columns=["device", "base_peak_bytes", "new_peak_bytes", "delta_bytes", "delta_pct",
                                       "ratio"])


def _device_table(base, new, scale_b: float, scale_n: float, notes: list, align: dict) -> pd.DataFrame:
    from .breakdown import summary_devices

    cols = ["device", "metric", "base_ns", "new_ns", "delta_ns", "delta_pct"]
    try:
        db = summary_devices(base) if len(base.events) else {}
        dn = {align.get(k, k): v for k, v in (summary_devices(new) if len(new.events) else {}).items()}
    except Exception as exc:  # an analysis failure must not lose the rest of the comparison
        notes.append(f"per-device breakdown unavailable: {type(exc).__name__}: {exc}")
        return pd.DataFrame(columns=cols)
    rows = []
    for dev in sorted(set(db) | set(dn)):
        for metric in ("busy_ns", "compute_ns", "communication_ns", "memcpy_ns", "idle_ns"):
            b = db.get(dev, {}).get(metric, np.nan) * scale_b
            n = dn.get(dev, {}).get(metric, np.nan) * scale_n
            rows.append({"device": dev, "metric": metric, "base_ns": float(b), "new_ns": float(n),
                         "delta_ns": float(n - b), "delta_pct": 100.0 * (n - b) / b if b and np.isfinite(b) else np.nan})
    return pd.DataFrame(rows, columns=cols)


def finding_key(f: dict) -> tuple:
    """A finding's identity: its rule and the ops it names (titles carry numbers)."""
    return (f.get("rule"), tuple(sorted(str(o) for o in (f.get("ops") or ()))))


def _device_kind(dev) -> str | None:
    return re.sub(r":\d+$", "", str(dev)) if dev else None


def same_finding(fb: dict, fn: dict) -> bool:
    """Is ``fn`` (new profile) the same finding as ``fb`` (base)? The same rule, and: for a finding about
    a device, the same kind of device (npu:0 and npu:1 match; a rank's device index is incidental);
    otherwise at least one op in common (or no ops on either side)."""
    if fb.get("rule") != fn.get("rule"):
        return False
    db = _device_kind((fb.get("evidence") or {}).get("device"))
    dn = _device_kind((fn.get("evidence") or {}).get("device"))
    if db or dn:
        return db == dn
    ob, on = set(fb.get("ops") or ()), set(fn.get("ops") or ())
    return (not ob and not on) or bool(ob & on)


def _findings(base, new, notes: list) -> dict:
    """Base findings without a match in the new profile are ``resolved``, new ones without a match in
    the base ``appeared``, matched pairs ``persisted`` (with the base's estimate beside the new one)."""
    from .api import findings as advisor, json_safe

    out = {"appeared": [], "resolved": [], "persisted": []}
    try:
        fb = [json_safe(f.to_dict()) for f in advisor(base)] if len(base.events) else []
        fn = [json_safe(f.to_dict()) for f in advisor(new)] if len(new.events) else []
    except Exception as exc:
        notes.append(f"findings unavailable: {type(exc).__name__}: {exc}")
        return out
    taken = [False] * len(fn)
    for f in fb:
        ops = set(f.get("ops") or ())
        best, best_score = None, -1.0
        for j, g in enumerate(fn):
            if taken[j] or not same_finding(f, g):
                continue
            other = set(g.get("ops") or ())
            score = len(ops & other) / len(ops | other) if ops | other else 1.0
            if score > best_score:
                best, best_score = j, score
        if best is None:
            out["resolved"].append(f)
        else:
            taken[best] = True
            g = fn[best]
            out["persisted"].append({**g, "base_est_gain_ns": f.get("est_gain_ns"), "base_title": f.get("title")})
    out["appeared"] = [g for j, g in enumerate(fn) if not taken[j]]
    return out


def compare(base, new, *, views=VIEWS, test: str = sig.DEFAULT_TEST, alpha: float = sig.DEFAULT_ALPHA,
            min_effect_pct: float = DEFAULT_MIN_EFFECT_PCT, min_share_pct: float = DEFAULT_MIN_SHARE_PCT,
            with_findings: bool = True) -> Comparison:
    """Compare two Profiles; ``base`` is before, ``new`` after. Pure: names and paths are resolved, and
    the track record written, by the front ends' ``cann_nb.compare`` (frontends/compare.py).

    ``test``: ``"welch"`` (default) or ``"mannwhitney"``, applied to per-step samples when both profiles
    have at least 2 recorded steps; ``alpha``: significance level (0.05); ``min_effect_pct`` (5 %) and
    ``min_share_pct`` (0.1 % of the base end-to-end time, at least 1 us): the smallest change of an op
    reported as slower/faster.
    """
    if test not in sig.TESTS:
        raise CompareInputError(f"unknown test {test!r}; choose from {', '.join(sig.TESTS)}")
    if not 0 < alpha < 1:
        raise CompareInputError(f"alpha must be between 0 and 1, not {alpha!r}")
    bad = [v for v in views if v not in VIEWS]
    if bad or not views:
        raise CompareInputError(f"unknown view(s) {bad}; choose from {', '.join(VIEWS)}")
    from ..model import Profile

    for side, p in (("base", base), ("new", new)):
        if not isinstance(p, Profile):
            raise TypeError(f"compare() takes two Profiles; the {side} is a {type(p).__name__} (cann_nb.compare "
                            "resolves names and paths)")
    notes: list[str] = []
    b_spans, n_spans = step_spans(base), step_spans(new)
    nb, nn = len(b_spans), len(n_spans)
    normalised = nb >= 1 and nn >= 1 and nb != nn
    scale_b, scale_n = (1.0 / nb, 1.0 / nn) if normalised else (1.0, 1.0)
    if normalised:
        notes.append(f"the profiles have {nb} and {nn} steps: counts, totals and the end-to-end time are per step")
    use_steps = nb >= sig.MIN_SAMPLES and nn >= sig.MIN_SAMPLES
    unknown_reason = None
    if not use_steps:
        if nb == nn:
            have = f"both profiles have {nb} recorded step{'' if nb == 1 else 's'}"
        else:
            have = " and ".join(f"the {side} profile has {k} recorded step{'' if k == 1 else 's'}"
                                for side, k in (("base", nb), ("new", nn)) if k < sig.MIN_SAMPLES)
        unknown_reason = (have + "; profile both with --repeat N (N >= 2) or cann_nb.step() "
                          "to test changes against run-to-run noise")
    # end-to-end
    wb, wn = float(base.wall_ns) * scale_b, float(new.wall_ns) * scale_n
    keep_b, keep_n = steady(b_spans), steady(n_spans)
    for side, spans, keep in (("base", b_spans, keep_b), ("new", n_spans, keep_n)):
        if len(keep) and not keep[0]:
            notes.append(f"the {side} profile's first step is a cold start ({F.ns(spans['dur_ns'].iloc[0])}, the "
                         f"others' median {F.ns(spans['dur_ns'].iloc[1:].median())}): it is left out of the "
                         "significance tests")
    db, dn = b_spans["dur_ns"].to_numpy(float), n_spans["dur_ns"].to_numpy(float)
    p_e2e = sig.p_value(db[keep_b], dn[keep_n], test) if use_steps else math.nan
    if use_steps and not (keep_b[0] and keep_n[0]) and \
            _cold_changed(db[:1], dn[:1], [float(base.wall_ns)], min_effect_pct)[0]:
        p_e2e = math.nan
        notes.append(f"the first (cold) steps differ by {F.ns(dn[0] - db[0], True)}, over {min_effect_pct:g}% of "
                     "the base end-to-end time: the end-to-end change is not tested for significance")
    cover = (steps_cover_wall(base, b_spans), steps_cover_wall(new, n_spans))
    if use_steps and min(cover) < STEP_COVERAGE:
        p_e2e = math.nan  # time outside the steps changed the end-to-end time too: the steps cannot tell
        notes.append(f"the steps cover {100 * cover[0]:.0f}% and {100 * cover[1]:.0f}% of the end-to-end times "
                     f"(< {100 * STEP_COVERAGE:.0f}%): the end-to-end change is not tested for significance")
    e2e = {"base_ns": wb, "new_ns": wn, "delta_ns": wn - wb,
           "delta_pct": 100.0 * (wn - wb) / wb if wb > 0 else math.nan,
           "ratio": wn / wb if wb > 0 else math.nan, "p_value": p_e2e,
           "significant": bool(p_e2e < alpha) if math.isfinite(p_e2e) else None,
           "per_step": normalised}
    e2e["verdict"] = _verdict(e2e, alpha, min_effect_pct)
    steps = {"base": _step_summary(b_spans), "new": _step_summary(n_spans), "p_value": p_e2e, "test": test}
    if nb and nn:
        mb, mn = steps["base"]["median_ns"], steps["new"]["median_ns"]
        steps["delta_median_ns"] = mn - mb
        steps["delta_pct"] = 100.0 * (mn - mb) / mb if mb > 0 else None
    # the run-to-run noise band of the step change, in % of the base step: a change within it is no result
    band = sig.noise_band(db[keep_b], dn[keep_n], alpha) if use_steps else math.nan
    mean_b = float(db[keep_b].mean()) if use_steps and keep_b.any() else math.nan
    steps["noise_pct"] = 100.0 * band / mean_b if math.isfinite(band) and mean_b > 0 else None
    floor_ns = max(MIN_EFFECT_FLOOR_NS, min_share_pct / 100.0 * wb)
    align = device_alignment(base, new)
    for dn_, db_ in align.items():
        notes.append(f"the new profile's {dn_} is compared with the base's {db_} (each has one such device)")
    tables = {v: _op_table(base, new, v, b_spans, n_spans, scale_b, scale_n, floor_ns, use_steps, test, alpha,
                           min_effect_pct, notes) for v in views}
    if "name" not in tables:
        tables["name"] = _op_table(base, new, "name", b_spans, n_spans, scale_b, scale_n, floor_ns, use_steps,
                                   test, alpha, min_effect_pct, notes)
    ops = tables["name"]
    if len(ops) and not ((ops["base_count"] > 0) & (ops["new_count"] > 0)).any():
        notes.append("the profiles have no op in common (different sources or devices name their ops "
                     "differently): every op is added or removed")
    if not len(base.events) or not len(new.events):
        notes.append(f"the {'base' if not len(base.events) else 'new'} profile has no events")
    settings = {
        "test": test, "test_name": {"welch": "Welch's t-test", "mannwhitney": "Mann-Whitney U"}[test],
        "alpha": alpha, "min_effect_pct": min_effect_pct, "min_share_pct": min_share_pct,
        "min_effect_ns": floor_ns, "available": use_steps, "n_base": nb, "n_new": nn, "normalised": normalised,
        "unknown_reason": unknown_reason,
        "description": (sig.describe(test, alpha) + f"; an op is slower/faster when also |delta| >= "
                        f"{min_effect_pct:g}% of its base time and >= {F.ns(floor_ns)}"
                        + ("" if use_steps else "; significance unknown: " + unknown_reason)),
    }
    cmp = Comparison(base=base, new=new, tables=tables, e2e=e2e, steps=steps,
                     memory=_memory_table(base, new, align),
                     devices=_device_table(base, new, scale_b, scale_n, notes, align),
                     findings=_findings(base, new, notes) if with_findings else
                     {"appeared": [], "resolved": [], "persisted": []},
                     settings=settings, notes=notes)
    return cmp


def _verdict(e: dict, alpha: float, min_effect_pct: float) -> str:
    """slower / faster / unchanged (within the noise or below the minimum effect) / unknown."""
    d = e["delta_pct"]
    if d is None or not math.isfinite(d):
        return "unknown"
    if abs(d) < min_effect_pct:
        return "unchanged"
    if e["significant"] is False:
        return "unchanged"
    return "slower" if d > 0 else "faster"
