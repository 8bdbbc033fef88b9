"""The advisor's gain track record: predicted vs realised gains of findings that a change resolved.

When ``compare(base, new)`` finds a finding of the base resolved in the new profile (and the run did
not get slower overall: a change that makes everything slower is no fix), it appends one record to ``STORE/.track_record.jsonl`` (a dot file: never read as a profile; the whole file is
rewritten to a temporary file and renamed, so it is never half written; re-running the same
comparison does not add duplicates). A record holds the finding's predicted gain (``est_gain_ns`` on
the base profile) and the realised gain:

* ``realised_e2e_ns``: the end-to-end time saved by the change (base - new, in base-profile units);
* ``realised_ns``: that saving attributed to this finding; when one change resolved several findings,
  the saving is shared out in proportion to their predicted gains (equally when unknown);
* ``realised_ops_ns``: the time saved on the finding's own ops (for information).

``accuracy(store)`` reports the record so far (median realised/predicted, median absolute error);
``calibrate(findings, store)`` scales later estimates by what the record shows: per rule, the
geometric mean of realised/predicted ratios (each clipped to [0.05, 20]) shrunk towards the overall
one, and the overall one towards 1, each with a weight of ``PRIOR_WEIGHT`` pseudo-records, so a few
records move the estimates only a little. The uncalibrated estimate stays in the finding's evidence.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import os
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

FILE = ".track_record.jsonl"
PRIOR_WEIGHT = 2.0
RATIO_CLIP = (0.05, 20.0)
COLUMNS = ["recorded_at", "key", "base", "new", "rule", "category", "ops", "title", "predicted_gain_ns",
           "predicted_gain_pct", "confidence", "realised_ns", "realised_e2e_ns", "realised_ops_ns", "n_resolved",
           "share", "e2e_significant", "ratio"]


def path(root) -> Path:
    return Path(root) / FILE


def _read_lines(root) -> list[dict]:
    p = path(root)
    if not p.is_file():
        return []
    out = []
    with open(p, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a damaged line costs that record only
            if isinstance(rec, dict):
                out.append(rec)
    return out


def read(root) -> pd.DataFrame:
    """Every record of the store at ``root`` as a DataFrame (empty when there is none)."""
    recs = _read_lines(root)
    df = pd.DataFrame(recs, columns=COLUMNS) if recs else pd.DataFrame(columns=COLUMNS)
    for c in ("predicted_gain_ns", "realised_ns", "realised_e2e_ns", "realised_ops_ns", "ratio"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def _ident(profile) -> dict:
    m = profile.meta or {}
    return {"name": profile.name, "version": m.get("version"), "created": m.get("created")}


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def entries(comparison) -> list[dict]:
    """The records a comparison yields: one per resolved finding."""
    resolved = comparison.findings.get("resolved") or []
    if not resolved:
        return []
    e2e = comparison.e2e
    steps_b = comparison.settings.get("n_base") or 1
    scale = steps_b if comparison.settings.get("normalised") else 1
    saving = (e2e["base_ns"] - e2e["new_ns"]) * scale if _finite(e2e["base_ns"]) and _finite(e2e["new_ns"]) \
        else math.nan
    preds = [f.get("est_gain_ns") for f in resolved]
    known = all(_finite(g) and g > 0 for g in preds)
    total_pred = sum(preds) if known else 0.0
    ops = comparison.tables["name"]
    base_id, new_id = _ident(comparison.base), _ident(comparison.new)
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    out = []
    for f, g in zip(resolved, preds):
        share = (g / total_pred) if known and total_pred > 0 else 1.0 / len(resolved)
        realised = saving * share if _finite(saving) else math.nan
        names = set(f.get("ops") or ())
        if names and len(ops):
            rows = ops[ops["name"].isin(names)]
            realised_ops = float((rows["base_total_ns"] - rows["new_total_ns"]).sum()) * scale if len(rows) else math.nan
        else:
            realised_ops = math.nan
        ratio = realised / g if _finite(g) and g > 0 and _finite(realised) else math.nan
        key = "|".join([f"{base_id['name']}@{base_id['version']}@{base_id['created']}",
                        f"{new_id['name']}@{new_id['version']}@{new_id['created']}",
                        str(f.get("rule")), ",".join(sorted(str(o) for o in names))])
        out.append({
            "recorded_at": now, "key": key, "base": base_id, "new": new_id, "rule": f.get("rule"),
            "category": f.get("category"), "ops": sorted(str(o) for o in names), "title": f.get("title"),
            "predicted_gain_ns": g if _finite(g) else None, "predicted_gain_pct": f.get("est_gain_pct"),
            "confidence": f.get("confidence"), "realised_ns": realised if _finite(realised) else None,
            "realised_e2e_ns": saving if _finite(saving) else None,
            "realised_ops_ns": realised_ops if _finite(realised_ops) else None,
            "n_resolved": len(resolved), "share": share, "e2e_significant": e2e.get("significant"),
            "ratio": ratio if _finite(ratio) else None,
        })
    return out


def record(root, comparison) -> list[dict]:
    """Append the comparison's resolved findings to the store's record (atomically, without
    duplicates); return the records that were new."""
    root = Path(root)
    new = entries(comparison)
    if not new:
        return []
    old = _read_lines(root)
    keys = {r.get("key") for r in old}
    fresh = [r for r in new if r["key"] not in keys]
    if not fresh:
        return []
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-track-{uuid.uuid4().hex[:8]}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for r in old + fresh:
                fh.write(json.dumps(r, allow_nan=False, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path(root))
    finally:
        if tmp.exists():
            tmp.unlink()
    return fresh


def _log_ratios(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[(df["predicted_gain_ns"] > 0) & df["realised_ns"].notna()]
    r = (ok["realised_ns"] / ok["predicted_gain_ns"]).clip(*RATIO_CLIP)
    return pd.DataFrame({"rule": ok["rule"].astype(str).to_numpy(), "log_ratio": np.log(r.to_numpy(float))})


def factors(root=None, records: pd.DataFrame | None = None) -> tuple[float, dict]:
    """(overall factor, {rule: (factor, n records)}): multiply an estimate by the factor of its rule."""
    df = records if records is not None else read(root)
    lr = _log_ratios(df) if len(df) else pd.DataFrame(columns=["rule", "log_ratio"])
    if not len(lr):
        return 1.0, {}
    log_g = float(lr["log_ratio"].sum()) / (len(lr) + PRIOR_WEIGHT)
    per = {}
    for rule, g in lr.groupby("rule"):
        log_f = (float(g["log_ratio"].sum()) + PRIOR_WEIGHT * log_g) / (len(g) + PRIOR_WEIGHT)
        per[str(rule)] = (math.exp(log_f), int(len(g)))
    return math.exp(log_g), per


def accuracy(root) -> dict:
    """How good the advisor's estimates have been in this store: ``records``, ``with_estimate``,
    ``median_ratio`` (realised / predicted), ``median_abs_error_pct``, ``within_50pct`` (share of
    records whose realised gain was within +-50 % of the prediction), ``factor`` (the overall
    calibration) and ``by_rule`` (the same per rule)."""
    df = read(root)
    out = {"records": int(len(df)), "with_estimate": 0, "median_ratio": None, "median_abs_error_pct": None,
           "within_50pct": None, "factor": 1.0, "by_rule": []}
    ok = df[(df["predicted_gain_ns"] > 0) & df["realised_ns"].notna()]
    if not len(ok):
        return out
    ratio = (ok["realised_ns"] / ok["predicted_gain_ns"]).to_numpy(float)
    err = np.abs(ratio - 1.0) * 100.0
    g, per = factors(records=df)
    out.update(with_estimate=int(len(ok)), median_ratio=float(np.median(ratio)),
               median_abs_error_pct=float(np.median(err)), within_50pct=float(np.mean(err <= 50.0)), factor=g)
    rows = []
    for rule, grp in ok.groupby(ok["rule"].astype(str)):
        r = (grp["realised_ns"] / grp["predicted_gain_ns"]).to_numpy(float)
        rows.append({"rule": rule, "records": int(len(grp)), "median_ratio": float(np.median(r)),
                     "median_abs_error_pct": float(np.median(np.abs(r - 1.0) * 100.0)),
                     "factor": per.get(rule, (g, 0))[0]})
    out["by_rule"] = rows
    return out


def summary_text(root) -> str:
    a = accuracy(root)
    if not a["records"]:
        return "advisor track record: no resolved findings recorded yet"
    if not a["with_estimate"]:
        return f"advisor track record: {a['records']} resolved findings, none with an estimate to check"
    return (f"advisor track record: {a['with_estimate']} resolved findings with estimates; realised/predicted "
            f"median {a['median_ratio']:.2f}, median error {a['median_abs_error_pct']:.0f}%, "
            f"{100 * a['within_50pct']:.0f}% within +-50%; later estimates x{a['factor']:.2f} overall")


def calibrate(findings, root) -> list:
    """The findings (Finding objects or their dicts) with ``est_gain_ns``/``est_gain_pct`` scaled by
    the store's track record (unchanged when there is none); the evidence keeps the uncalibrated gain
    and the factor used under ``calibration``."""
    g, per = factors(root)
    if not per:
        return list(findings)
    out = []
    for f in findings:
        is_dict = isinstance(f, dict)
        rule = f.get("rule") if is_dict else f.rule
        gain = f.get("est_gain_ns") if is_dict else f.est_gain_ns
        gain_pct = f.get("est_gain_pct") if is_dict else f.est_gain_pct
        evidence = dict((f.get("evidence") if is_dict else f.evidence) or {})
        if not _finite(gain):
            out.append(f)
            continue
        factor, n = per.get(str(rule), (g, 0))
        wall = evidence.get("wall_ns")
        new_gain = gain * factor
        if wall:
            new_gain = min(new_gain, float(wall))
        pct = gain_pct * (new_gain / gain) if gain and _finite(gain_pct) else gain_pct
        evidence["calibration"] = {"uncalibrated_gain_ns": gain, "factor": factor, "records": n,
                                   "scope": "rule" if n else "all rules", "source": FILE}
        if is_dict:
            out.append({**f, "est_gain_ns": new_gain, "est_gain_pct": pct, "evidence": evidence})
        else:
            out.append(dataclasses.replace(f, est_gain_ns=new_gain, est_gain_pct=pct, evidence=evidence))
    return out
