"""Performance budgets for CI: ``cann-nb check`` and ``cann_nb.frontends.check.check``.

    cann-nb check --threshold 200ms --file PROFILE_OR_DIR [--metric e2e|step_p50|step_p99|op:NAME|COUNTER]
                  [--baseline PROFILE --max-regression 10%] [--max-memory 2GB] [--json] [--junit FILE]

Every metric is printed; only breaches count. Exit codes: 0 every check within budget, 1 at least one
breach, 2 bad input or usage (unknown metric, malformed limit, missing file, a profile without the
steps a metric needs...).

Metrics
  ``e2e``        the profile's end-to-end (wall) time
  ``step_p50``   median step time, ``step_p99`` its 99th percentile (linear interpolation), from the
                 recorded steps (``--repeat N``, ``cann_nb.step()``, ``ProfilerStep#N``)
  ``op:NAME``    total time of the op NAME (every event of that name, host or device)
  ``COUNTER``    a metric of the counters table (custom metrics, ``cpu_util:process``...), its mean;
                 ``max(COUNTER)``, ``min(COUNTER)``, ``last(COUNTER)`` pick another aggregate; or a
                 ``per="profile"`` metric registered in this process with ``cann_nb.add_custom_metric``. Counters
                 whose unit is known take limits in it: ``latency_*`` and ``*_ns`` are times (the
                 monitor's ``max(latency_p99)=20ms``), ``rss``, ``gpu_mem_used`` and ``*bytes*`` sizes,
                 ``*util*`` percentages; other counters take plain numbers

Units (strict: a number, optionally a space, then exactly one of these; no sign, no bare numbers
where a unit is expected; an error names the bad token)
  time      ns, us (or µs), ms, s
  size      B, kB (or KB), MB, GB, TB are decimal (1 kB = 1000 B); KiB, MiB, GiB, TiB are binary (1024)
  relative  %, for --max-regression (a time is accepted too: the largest allowed increase)

Checks
  ``--threshold [METRIC=]LIMIT``   value <= LIMIT; without ``METRIC=`` it applies to every ``--metric``
  ``--baseline B --max-regression R``  (value - baseline) / baseline <= R. When both profiles have at
      least 2 recorded steps, the change must also be statistically significant (Welch's t-test on
      the per-step samples, p < ``--alpha``, default 0.05) to count as a breach: a difference within
      the run-to-run noise passes. A cold first step (the slowest, over 1.2x the median of the
      others) is left out of the samples; if the two runs' first steps differ by more than 5 % of the
      e2e or op total, or the steps cover less than 90 % of it, or a side has no steps, the values
      alone decide.
  ``--max-memory [DEV=]SIZE``      peak allocated memory of each device with allocator data (or of DEV,
      e.g. ``host:rss=3GB`` for the host's resident set) <= SIZE

``--file`` takes a profile directory, a store directory (every profile in it is checked, the latest
version of each name; the baseline, if it lives there, is skipped), a multi-rank group (every rank),
any importable trace or folder, or a name in the store (``NAME``, ``NAME@k``, ``GROUP``, ``GROUP/rank=N``;
``--store DIR``, default $CANN_NB_DIR or ./profile_results); ``--baseline`` takes one profile the same
ways. A profile whose run failed or was interrupted is a breach.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import os
import re
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..analyze import significance as sig
from .. import formatting as F
from ..errors import CannNbError, InputError
from ..formatting import SIZE_UNITS, TIME_UNITS, parse_percent, parse_quantity, parse_size, parse_time  # noqa: F401
from ..model import counter_kind

STEP_METRICS = {"step_p50": 50.0, "step_p99": 99.0}
MIN_EFFECT_PCT = 5.0   # first (cold) steps differing by more than this share of the baseline: untestable
AGGREGATES = ("mean", "max", "min", "last")
_AGG_RE = re.compile(r"^(?P<agg>mean|max|min|last)\((?P<name>.+)\)$")


# Bad input or usage for a check (exit code 2): the message names the bad token or file. The same
# error as a bad quantity anywhere (formatting.parse_quantity): one kind of "you typed it wrong".
CheckInputError = InputError


# -- metrics ----------------------------------------------------------------------------------------
@dataclass
class MetricValue:
    name: str
    kind: str                      # "time" (ns), "size" (bytes), "percent" or "number"
    value: float
    samples: np.ndarray | None     # per-step samples for significance (None without >= 2 steps)
    first: float | None = None     # the metric's value in the first step (when there are samples)
    cold: bool = False             # the first step is a cold start, left out of ``samples``


_UNIT_OF_KIND = {"time": "ns", "size": "bytes", "percent": "%", "number": "number"}


def check_metric_name(name: str) -> str:
    n = name.strip()
    if not n:
        raise CheckInputError("--metric: empty metric name; use e2e, step_p50, step_p99, op:NAME or a counter metric")
    if n.startswith("op:") and not n[3:].strip():
        raise CheckInputError(f"--metric {name!r}: op: needs an op name, e.g. op:aten::mm")
    return n


def metric_value(profile, name: str) -> MetricValue:
    """The value of one metric on one profile; CheckInputError when the profile cannot give it."""
    from ..analyze.comparison import STEP_COVERAGE, _per_step, steady, step_spans, steps_cover_wall

    label = profile.name or "profile"
    spans = step_spans(profile)
    keep = steady(spans)            # samples leave out a cold first step
    samples_ok = int(keep.sum()) >= 2
    cold = bool(len(keep) and not keep[0])
    if name == "e2e":
        if not len(profile.events) and not profile.meta.get("wall_ns"):
            raise CheckInputError(f"profile {label!r} is empty: no events and no wall time")
        # the steps judge the end-to-end time only when they cover it (setup outside them could change)
        d = spans["dur_ns"].to_numpy(float)
        if samples_ok and steps_cover_wall(profile, spans) >= STEP_COVERAGE:
            return MetricValue(name, "time", float(profile.wall_ns), d[keep], float(d[0]), cold)
        return MetricValue(name, "time", float(profile.wall_ns), None)
    if name in STEP_METRICS:
        if not len(spans):
            raise CheckInputError(f"metric {name}: profile {label!r} has no step events; profile with --repeat N, "
                                  "call cann_nb.step() at the start of each iteration, or (torch.profiler) "
                                  "prof.step() for ProfilerStep#N spans")
        d = spans["dur_ns"].to_numpy(float)
        value = float(np.percentile(d, STEP_METRICS[name]))
        if samples_ok:  # a percentile is not moved by one cold step: no first-step rule for it
            return MetricValue(name, "time", value, d[keep])
        return MetricValue(name, "time", value, None)
    if name.startswith("op:"):
        op = name[3:]
        ev = profile.events
        names = ev["name"].astype(str)
        sel = (names == op).to_numpy()
        if not sel.any():
            close = difflib.get_close_matches(op, sorted(set(names)), n=3)
            raise CheckInputError(f"metric {name}: profile {label!r} has no op named {op!r}"
                                  + (f" (close: {', '.join(close)})" if close else ""))
        total = float(ev["dur_ns"].to_numpy()[sel].sum())
        if samples_ok:
            per = _per_step(ev[sel], "name", spans)
            all_steps = per.sum(axis=0).to_numpy(float) if per is not None and len(per) else np.zeros(len(spans))
            if all_steps.sum() >= STEP_COVERAGE * total:  # else mostly outside the steps: they cannot judge it
                return MetricValue(name, "time", total, all_steps[keep], float(all_steps[0]), cold)
        return MetricValue(name, "time", total, None)
    m = _AGG_RE.match(name)
    agg, counter = (m.group("agg"), m.group("name")) if m else ("mean", name)
    cn = profile.counters
    if len(cn):
        vals = cn.loc[cn["metric"].astype(str) == counter].sort_values("ts_ns", kind="stable")["value"].to_numpy(float)
        vals = vals[np.isfinite(vals)]
        if len(vals):
            v = {"mean": vals.mean(), "max": vals.max(), "min": vals.min(), "last": vals[-1]}[agg]
            return MetricValue(name, counter_kind(counter), float(v), None)
    if not m:
        from ..collect.custom_metrics import registered

        metric = registered("profile").get(name)
        if metric is not None:
            try:
                v = float(metric.fn(profile))
            except Exception as exc:
                raise CheckInputError(f"custom metric {name!r} failed on profile {label!r}: "
                                      f"{type(exc).__name__}: {exc}") from None
            return MetricValue(name, "number", v, None)
    have = sorted(set(cn["metric"].astype(str))) if len(cn) else []
    raise CheckInputError(f"unknown metric {name!r} for profile {label!r}: use e2e, step_p50, step_p99, op:NAME "
                          f"or a counter metric" + (f" (this profile has: {', '.join(have[:12])})" if have else
                                                   " (this profile has no counter metrics)"))


# -- profiles ---------------------------------------------------------------------------------------
def profiles_at(path, exclude: Path | None = None, store=None) -> tuple[list, list[str]]:
    """[(label, Profile)] for --file, and notes (e.g. the baseline skipped). ``path``: a store directory
    (every profile in it, the latest version of each name), or what ``ingest.load.resolve`` takes (a
    group, stored or imported, gives every rank); names are looked up in ``store``."""
    from ..ingest.load import resolve
    from ..store import ProfileGroup

    p = Path(path).expanduser()
    if _is_store(p):
        return _store_profiles(p, path, exclude)
    try:
        obj = resolve(path, store, group_ok=True)
    except CannNbError as exc:
        raise CheckInputError(f"--file: {exc}") from None  # the error names what was typed
    if isinstance(obj, ProfileGroup):
        return [(f"{obj.name}/rank={r}", obj[r]) for r in obj.ranks], []
    return [(_label(obj, path), obj)], []


def _is_store(p: Path) -> bool:
    """A directory of stored profiles (not itself a profile or a group)."""
    from ..store import is_group_dir, is_profile_dir

    return p.is_dir() and not is_profile_dir(p) and not is_group_dir(p) and \
        any(is_profile_dir(c) or is_group_dir(c) for c in p.iterdir() if not c.name.startswith("."))


def _store_profiles(p: Path, typed, exclude: Path | None) -> tuple[list, list[str]]:
    from ..store import ProfileGroup, Session

    session, out, notes = Session(p), [], []
    for name in session.names():
        if exclude is not None and (p / name).resolve() == exclude:
            notes.append(f"{name}: skipped, it is the baseline")
            continue
        try:
            obj = session[name]
        except CannNbError as exc:
            raise CheckInputError(f"--file {str(typed)!r}: {exc}") from None
        if isinstance(obj, ProfileGroup):
            out.extend((f"{name}/rank={r}", obj[r]) for r in obj.ranks)
        else:
            out.append((name, obj))
    if not out:
        raise CheckInputError(f"--file {str(typed)!r}: the store has no profile to check besides the baseline")
    return out, notes


def _label(profile, typed) -> str:
    """A store name as typed (``nightly@1`` says which version); else the profile's name."""
    if not Path(typed).expanduser().exists():
        return str(typed)
    return profile.name or Path(typed).name


def baseline_at(path, store=None):
    """One Profile for --baseline: what ``ingest.load.resolve`` takes (a path, NAME, NAME@k,
    GROUP/rank=N; names in ``store``)."""
    from ..ingest.load import resolve

    try:
        return resolve(path, store)
    except CannNbError as exc:
        raise CheckInputError(f"--baseline: {exc}") from None


# -- the check --------------------------------------------------------------------------------------
@dataclass
class Row:
    profile: str
    metric: str
    check: str                    # threshold | regression | memory | status | value (no limit: printed only)
    value: float | None
    unit: str                     # ns | bytes | % | number | ""
    limit: float | None
    limit_text: str
    breach: bool
    baseline: float | None = None
    change_pct: float | None = None
    p_value: float | None = None
    significant: bool | None = None
    message: str = ""

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


@dataclass
class CheckResult:
    rows: list
    notes: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    @property
    def breaches(self) -> int:
        return sum(1 for r in self.rows if r.breach)

    @property
    def exit_code(self) -> int:
        return 1 if self.breaches else 0

    @property
    def ok(self) -> bool:
        return not self.breaches

    def to_dict(self) -> dict:
        return {"ok": self.ok, "exit_code": self.exit_code, "breaches": self.breaches, "checks": len(self.rows),
                "settings": self.settings, "notes": self.notes, "results": [r.as_dict() for r in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, allow_nan=False)

    def text(self) -> str:
        rows = []
        for r in self.rows:
            rows.append([F.clip(r.profile, 40), F.clip(r.metric, 40), r.check, _fmt(r.value, r.unit),
                         r.limit_text, _fmt(r.baseline, r.unit) if r.baseline is not None else "",
                         F.pct(r.change_pct) if r.change_pct is not None else "",
                         F.pvalue(r.p_value) if r.p_value is not None else "",
                         "BREACH" if r.breach else "ok"])
        out = ["cann-nb check"]
        out.append(F.table(rows, ["profile", "metric", "check", "value", "limit", "baseline", "change", "p", "result"],
                           right={3, 5, 6, 7}))
        for r in self.rows:
            if r.message:
                out.append(f"  {'BREACH' if r.breach else 'note'}: {r.profile} {r.metric}: {r.message}")
        for n in self.notes:
            out.append(f"  note: {n}")
        out.append(f"result: {self.breaches} breach{'es' if self.breaches != 1 else ''} in {len(self.rows)} "
                   f"check{'s' if len(self.rows) != 1 else ''} -> exit {self.exit_code}")
        return "\n".join(out)

    def junit_xml(self) -> str:
        """JUnit XML: one testsuite, one testcase per check, a <failure> per breach."""
        suite = ET.Element("testsuite", name="cann_nb check", tests=str(len(self.rows)),
                           failures=str(self.breaches), errors="0", skipped="0")
        for r in self.rows:
            case = ET.SubElement(suite, "testcase", classname=f"cann_nb.check.{r.profile}",
                                 name=f"{r.metric} {r.check} {r.limit_text}".strip(), time="0")
            detail = (f"{r.metric} = {_fmt(r.value, r.unit)}, limit {r.limit_text}"
                      + (f", baseline {_fmt(r.baseline, r.unit)}" if r.baseline is not None else "")
                      + (f", change {F.pct(r.change_pct)}" if r.change_pct is not None else "")
                      + (f", p = {F.pvalue(r.p_value)}" if r.p_value is not None else "")
                      + (f". {r.message}" if r.message else ""))
            if r.breach:
                fail = ET.SubElement(case, "failure", message=f"{r.metric}: {r.check} breached ({r.limit_text})",
                                     type="cann_nb.breach")
                fail.text = detail
            else:
                ET.SubElement(case, "system-out").text = detail
        ET.SubElement(suite, "system-out").text = self.text()
        root = ET.Element("testsuites", name="cann_nb", tests=str(len(self.rows)), failures=str(self.breaches))
        root.append(suite)
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

    def write_junit(self, path) -> Path:
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:8]}.tmp"
            tmp.write_text(self.junit_xml(), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            raise CheckInputError(f"--junit {str(path)!r}: cannot write: {exc}") from None
        return path


def _fmt(value, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ns":
        return F.ns(value)
    if unit == "bytes":
        return F.nbytes(value)
    if unit == "%":
        return f"{value:.4g} %"
    return f"{value:.6g}"


def _split_limit(text: str, what: str):
    """'200ms' -> (None, '200ms'); 'op:aten::mm=20ms' -> ('op:aten::mm', '20ms')."""
    if "=" in text:
        left, right = text.rsplit("=", 1)
        if not left.strip():
            raise CheckInputError(f"{what} {text!r}: nothing before '='; write METRIC=LIMIT, e.g. step_p50=50ms")
        return left.strip(), right
    return None, text


def check(file, *, metrics=None, thresholds=None, baseline=None, max_regression=None, max_memory=None,
          alpha: float = sig.DEFAULT_ALPHA, test: str = sig.DEFAULT_TEST, store=None) -> CheckResult:
    """Run the checks on every profile at ``file``; see the module docstring. ``thresholds`` and
    ``max_memory`` are lists of strings (``"200ms"``, ``"step_p50=50ms"``, ``"2GB"``, ``"host:rss=3GB"``);
    ``max_regression`` a string (``"10%"`` or a time). ``file`` and ``baseline`` may be names in
    ``store`` (default $CANN_NB_DIR or ./profile_results). Raises CheckInputError on bad input."""
    if isinstance(thresholds, str):
        thresholds = [thresholds]
    if isinstance(max_memory, str):
        max_memory = [max_memory]
    if isinstance(metrics, str):
        metrics = [metrics]
    thresholds, max_memory = list(thresholds or []), list(max_memory or [])
    if not 0 < alpha < 1:
        raise CheckInputError(f"--alpha {alpha!r}: must be between 0 and 1")
    if test not in sig.TESTS:
        raise CheckInputError(f"--test {test!r}: choose from {', '.join(sig.TESTS)}")
    if baseline is not None and max_regression is None:
        raise CheckInputError("--baseline needs --max-regression (e.g. --max-regression 10%)")
    if max_regression is not None and baseline is None:
        raise CheckInputError("--max-regression needs --baseline PROFILE to compare with")
    if not thresholds and baseline is None and not max_memory:
        raise CheckInputError("nothing to check: give --threshold LIMIT, --baseline PROFILE --max-regression R, "
                              "or --max-memory SIZE")
    metric_list = [check_metric_name(m) for m in (metrics or [])]
    parsed_thresholds = []   # (metric or None, raw text)
    for t in thresholds:
        metric, limit = _split_limit(t, "--threshold")
        if metric is not None:
            metric = check_metric_name(metric)
            if metric not in metric_list:
                metric_list.append(metric)
        parsed_thresholds.append((metric, limit, t))
    if not metric_list and (parsed_thresholds or baseline is not None):
        metric_list = ["e2e"]   # the default metric; a memory-only check prints only memory
    # parse every limit before loading anything: a typo fails fast, with exit 2
    for metric, limit, raw in parsed_thresholds:
        applies = [metric] if metric is not None else metric_list
        timed = all(m == "e2e" or m in STEP_METRICS or m.startswith("op:") for m in applies)
        parse_quantity(limit, ("time",) if timed else ("time", "size", "percent", "number"), "--threshold")
    reg = None
    if max_regression is not None:
        reg = parse_quantity(max_regression, ("percent", "time"), "--max-regression")
    mem_limits = []
    for raw in max_memory:
        dev, size = _split_limit(raw, "--max-memory")
        mem_limits.append((dev, parse_size(size, "--max-memory"), raw))

    base_profile = None
    exclude = None
    if baseline is not None:
        base_profile = baseline_at(baseline, store)
        at = base_profile.meta.get("stored_at")
        exclude = Path(at).resolve() if at else None      # a store --file skips the baseline
    profiles, notes = profiles_at(file, exclude=exclude, store=store)
    rows: list[Row] = []
    base_values: dict[str, MetricValue] = {}
    for label, prof in profiles:
        if prof.status != "ok":
            rows.append(Row(label, "status", "status", None, "", None, "ok", True,
                            message=f"the profiled run is {prof.status!r}"
                                    + (f": {prof.meta.get('error')}" if prof.meta.get("error") else "")))
        for name in metric_list:
            mv = metric_value(prof, name)
            unit = _UNIT_OF_KIND[mv.kind]
            for metric, limit, raw in parsed_thresholds:
                if metric is not None and metric != name:
                    continue
                lim, _ = parse_quantity(limit, (mv.kind,), f"--threshold (for {name})")
                rows.append(Row(label, name, "threshold", mv.value, unit, lim, f"<= {_fmt(lim, unit)}",
                                bool(mv.value > lim)))
            if base_profile is not None:
                if name not in base_values:
                    try:
                        base_values[name] = metric_value(base_profile, name)
                    except CheckInputError as exc:
                        raise CheckInputError(f"baseline: {exc}") from None
                rows.append(_regression_row(label, mv, base_values[name], reg, max_regression, unit, alpha, test))
        for name in metric_list:  # every metric is printed, also one without a limit of its own
            if not any(r.profile == label and r.metric == name for r in rows):
                mv = metric_value(prof, name)
                rows.append(Row(label, name, "value", mv.value, _UNIT_OF_KIND[mv.kind], None, "-", False))
        if mem_limits:
            rows.extend(_memory_rows(label, prof, mem_limits))
    settings = {"metrics": metric_list, "alpha": alpha, "test": test, "significance": sig.describe(test, alpha),
                "units": "time ns/us/ms/s; sizes decimal (kB = 1000 B, MB, GB) or binary (KiB, MiB, GiB); %",
                "baseline": base_profile.name if base_profile is not None else None,
                "file": str(file), "profiles": [label for label, _ in profiles]}
    return CheckResult(rows, notes, settings)


def _regression_row(label, mv: MetricValue, bv: MetricValue, reg, reg_text, unit, alpha, test) -> Row:
    limit, kind = reg
    base = bv.value
    delta = mv.value - base
    change = 100.0 * delta / base if base > 0 else (math.inf if delta > 0 else 0.0)
    p = math.nan
    cold_note = ""
    if mv.samples is not None and bv.samples is not None:
        p = sig.p_value(bv.samples, mv.samples, test)
        if (mv.cold or bv.cold) and mv.first is not None and bv.first is not None and \
                abs(mv.first - bv.first) > MIN_EFFECT_PCT / 100.0 * abs(base):
            # the left-out cold first steps changed notably: one sample per side, no test can judge it
            p = math.nan
            cold_note = (f"the first (cold) steps differ by {_fmt(mv.first - bv.first, unit)}; "
                         "significance unknown, the values alone decide")
    significant = bool(p < alpha) if math.isfinite(p) else None
    if kind == "percent":
        over = change > limit
        limit_text = f"<= +{limit:g}% vs baseline"
    else:
        if mv.kind != "time":
            raise CheckInputError(f"--max-regression {reg_text!r}: a time limit does not apply to {mv.name} "
                                  "(not a time); use a percentage")
        over = delta > limit
        limit_text = f"<= +{F.ns(limit)} vs baseline"
    breach = bool(over and significant is not False)
    if over and significant is False:
        msg = (f"{F.pct(change)} is over the budget but within the run-to-run noise "
               f"(p = {F.pvalue(p)} >= {alpha:g}): not counted")
    elif over and significant is None:
        msg = cold_note or "significance unknown (no per-step samples on both sides); the values alone decide"
    elif over:
        msg = f"regressed by {F.pct(change)} ({_fmt(delta, unit)}), significant (p = {F.pvalue(p)})"
    else:
        msg = ""
    return Row(label, mv.name, "regression", mv.value, unit, limit, limit_text, breach, baseline=base,
               change_pct=change if math.isfinite(change) else None, p_value=p if math.isfinite(p) else None,
               significant=significant, message=msg)


def _memory_rows(label, prof, mem_limits) -> list[Row]:
    from ..analyze.memory import peak_memory

    peaks = peak_memory(prof.memory, prof.counters)
    alloc_devs = [d for d in peaks if d != "host:rss"]
    rows = []
    for dev, lim, raw in mem_limits:
        if dev is None:
            if not alloc_devs:
                have = ", ".join(peaks) or "none"
                raise CheckInputError(f"--max-memory {raw!r}: profile {label!r} has no allocator memory data "
                                      f"(devices with memory data: {have}); record with --memory, or name a "
                                      f"device, e.g. --max-memory host:rss={raw}")
            devs = alloc_devs
        else:
            if dev not in peaks:
                have = ", ".join(peaks) or "none"
                raise CheckInputError(f"--max-memory {raw!r}: profile {label!r} has no memory data for {dev!r} "
                                      f"(devices with memory data: {have})")
            devs = [dev]
        for d in devs:
            v = float(peaks[d])
            rows.append(Row(label, f"peak_memory[{d}]", "memory", v, "bytes", lim, f"<= {F.nbytes(lim)}",
                            bool(v > lim)))
    return rows
