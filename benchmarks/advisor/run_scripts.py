"""The advisor graded as users meet it: planted slow/fixed script pairs, profiled with the command line
and default flags.

    python benchmarks/advisor/run_scripts.py                       # every case of every set
    python benchmarks/advisor/run_scripts.py --set heldout         # the held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout2        # the second held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout3        # the third held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout4        # the fourth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout5        # the fifth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout6        # the sixth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout7        # the seventh held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout8        # the eighth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout9        # the ninth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout10       # the tenth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout11       # the eleventh held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout12       # the twelfth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout13       # the thirteenth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout14       # the fourteenth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout15       # the fifteenth held-out set only
    python benchmarks/advisor/run_scripts.py --set heldout16       # the sixteenth held-out set only
    python benchmarks/advisor/run_scripts.py --only t01 h03        # cases by name prefix
    python benchmarks/advisor/run_scripts.py --markdown            # the results tables from the last runs
    python benchmarks/advisor/run_scripts.py --set heldout15 --reuse-measured   # profiles only, stored timings

A case is a folder with ``slow.py`` (declaring ``PLANTED``, the finding categories that name its
problem, and optionally ``TOL``) and ``fixed.py`` (the same work with the problem fixed). For each case:

1. measured gain: slow and fixed run alternately in fresh processes (``timer.py``: the script's own run
   time, numpy and torch already imported as under ``cann-nb run``), ``--repeats`` times each; medians;
   ``measured = 100 * (1 - fixed / slow)``. Their results must agree within TOL.
2. the slow script profiled exactly as a user would: ``python -m cann_nb run slow.py --output DIR``
   (default flags), then ``python -m cann_nb analyze NAME --store DIR --json``.
3. detected: a finding of a PLANTED category among the first 3 findings (sorted by estimated gain);
   gain error: |estimated - measured| in points, the estimate of the best-ranked such finding, 0 for a
   miss.
4. the recording-cost model: ``modelled_bare_s`` (the profiled wall less what the advisor charges to the
   profiler's own recording, analyze/recording_cost.py) against the measured ``slow_s``.

All processes run with OMP_NUM_THREADS=1 (one torch/numpy thread: the machine has 2 shared cores).
Results are merged into ``benchmarks/results/advisor_scripts.json`` case by case, so the sets can be
run in small batches.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SETS = {"tuned": HERE / "scripts", "heldout": HERE / "heldout", "heldout2": HERE / "heldout2",
        "heldout3": HERE / "heldout3", "heldout4": HERE / "heldout4", "heldout5": HERE / "heldout5",
        "heldout6": HERE / "heldout6", "heldout7": HERE / "heldout7",
        "heldout8": HERE / "heldout8", "heldout9": HERE / "heldout9", "heldout10": HERE / "heldout10",
        "heldout11": HERE / "heldout11", "heldout12": HERE / "heldout12",
        "heldout13": HERE / "heldout13", "heldout14": HERE / "heldout14", "heldout15": HERE / "heldout15",
        "heldout16": HERE / "heldout16", "heldout17": HERE / "heldout17", "heldout18": HERE / "heldout18",
        "heldout19": HERE / "heldout19", "heldout20": HERE / "heldout20",
        "heldout21": HERE / "heldout21", "heldout22": HERE / "heldout22",
        "heldout23": HERE / "heldout23",
        "heldout24": HERE / "heldout24"}
RESULTS = ROOT / "benchmarks" / "results" / "advisor_scripts.json"
TOP_K = 3
# warnings keep Python's default filters, as in a user's shell: libraries' performance warnings are evidence
# the advisor reads (analyze/rules/library_warnings.py); before session 12 they were ignored here
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
ENV.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", KINETO_LOG_LEVEL="99")


def cases(which: list[str], only: list[str] | None) -> list[tuple[str, Path]]:
    out = []
    for name in which:
        folder = SETS[name]
        if not folder.is_dir():
            raise SystemExit(f"run_scripts: the set {name!r} has no folder {folder}")
        for d in sorted(p for p in folder.iterdir() if (p / "slow.py").is_file()):
            if not only or any(d.name.startswith(o) for o in only):
                out.append((name, d))
    return out


def declared(slow: Path) -> dict:
    """PLANTED, TOL and the docstring's first line, read from the script without running it."""
    tree = ast.parse(slow.read_text())
    out = {"planted": (), "tol": 1e-4, "about": (ast.get_docstring(tree) or "").split("\n\n")[0].replace("\n", " ")}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            key = node.targets[0].id
            if key in ("PLANTED", "TOL"):
                out[key.lower()] = ast.literal_eval(node.value)
    return out


def _python(*args, timeout=900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=ENV, timeout=timeout, cwd=ROOT)


def measure(case: Path, repeats: int, tol: float, tmp: Path) -> dict:
    import numpy as np

    times = {"slow": [], "fixed": []}
    for _ in range(repeats):
        for side in ("slow", "fixed"):
            r = _python(str(HERE / "timer.py"), str(case / f"{side}.py"), str(tmp / f"{side}.npy"))
            if r.returncode:
                raise RuntimeError(f"{case.name}/{side}.py failed:\n{r.stderr[-2000:]}")
            times[side].append(float(r.stdout.strip().splitlines()[-1]))
    a, b = np.load(tmp / "slow.npy"), np.load(tmp / "fixed.npy")
    agree = a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol))
    ts, tf = statistics.median(times["slow"]), statistics.median(times["fixed"])
    return {"slow_s": ts, "fixed_s": tf, "slow_runs_s": times["slow"], "fixed_runs_s": times["fixed"],
            "measured_pct": 100.0 * (1.0 - tf / ts), "results_agree": agree}


def profile(case: Path, tmp: Path) -> dict:
    store = tmp / "store"
    r = _python("-m", "cann_nb", "run", str(case / "slow.py"), "--output", str(store), "-n", case.name, "--quiet")
    if r.returncode:
        raise RuntimeError(f"cann_nb run {case.name}: exit {r.returncode}\n{r.stderr[-2000:]}")
    r = _python("-m", "cann_nb", "analyze", case.name, "--store", str(store), "--json")
    if r.returncode:
        raise RuntimeError(f"cann_nb analyze {case.name}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return json.loads(r.stdout)


def judge(out: dict, planted, measured: float) -> dict:
    fs = out["findings"]
    top = fs[:TOP_K]
    hit = next((f for f in top if f["category"] in planted), None)
    est = hit.get("est_gain_pct") if hit else None
    est = float(est) if est is not None and math.isfinite(float(est)) else 0.0
    prof = out["profile"]
    # the advisor's model of the run without the profiler (analyze/recording_cost.py), to set against slow_s
    rec = next((f["evidence"]["recording"] for f in fs if isinstance(f.get("evidence", {}).get("recording"), dict)), {})
    return {"detected": hit is not None, "rule": hit["rule"] if hit else None, "estimated_pct": est if hit else 0.0,
            "error_pts": abs(est - measured) if hit else abs(measured),
            "collectors": sorted(k for k, v in (prof.get("collectors") or {}).items() if v.get("status") == "ok"),
            "profiled_s": (prof.get("wall_ns") or 0) / 1e9,
            "modelled_bare_s": (rec.get("wall_without_recording_ns") or prof.get("wall_ns") or 0) / 1e9,
            "skipped": [s["rule"] for s in prof.get("analysis_skipped") or [] if s.get("enable")],
            "top": [{"rule": f["rule"], "category": f["category"], "gain_pct": f.get("est_gain_pct"),
                     "title": f["title"]} for f in top]}


MEASURED = ("slow_s", "fixed_s", "slow_runs_s", "fixed_runs_s", "measured_pct", "results_agree")


def run(which, only, repeats, measured: dict | None = None) -> list[dict]:
    """Grade the cases; ``measured``: stored rows by case whose timings are reused (a profile-only re-grading
    of a seen set, e.g. while another job times scripts on the machine)."""
    rows = []
    for set_name, case in cases(which, only):
        spec = declared(case / "slow.py")
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            old = (measured or {}).get(case.name)
            m = {k: old[k] for k in MEASURED} if old else measure(case, repeats, spec["tol"], tmp)
            res = judge(profile(case, tmp), spec["planted"], m["measured_pct"])
        row = {"case": case.name, "set": set_name, "planted": list(spec["planted"]), "about": spec["about"], **m, **res,
               "seconds": round(time.perf_counter() - t0, 1)}
        rows.append(row)
        est = f"{row['estimated_pct']:5.1f}%" if row["detected"] else " miss "
        print(f"{set_name:8s} {case.name:30s} planted={'/'.join(spec['planted']):36s} found={str(row['rule']):20s} "
              f"est={est} measured={m['measured_pct']:5.1f}% agree={m['results_agree']} "
              f"top={[t['rule'] for t in res['top']]}", flush=True)
    return rows


def summarize(rows: list[dict]) -> dict:
    out = {}
    for name in (*SETS, "all"):
        sel = [r for r in rows if name == "all" or r["set"] == name]
        if not sel:
            continue
        errs = [r["error_pts"] for r in sel]
        out[name] = {"cases": len(sel), "detected": sum(r["detected"] for r in sel),
                     "detection_pct": 100.0 * sum(r["detected"] for r in sel) / len(sel),
                     "median_error_pts": statistics.median(errs), "max_error_pts": max(errs)}
    return out


def markdown(rows: list[dict]) -> str:
    lines = []
    for name in SETS:
        sel = [r for r in rows if r["set"] == name]
        if not sel:
            continue
        lines += [f"**{name}** ({len(sel)} cases)", "",
                  "| case | planted | found by (top 3) | estimated | measured | error | top 3 by estimated gain |",
                  "|---|---|---|---:|---:|---:|---|"]
        for r in sel:
            top = ", ".join(f"{t['rule']} {t['gain_pct']:.0f}%" if t["gain_pct"] is not None else f"{t['rule']} –"
                            for t in r["top"])
            found = r["rule"] if r["detected"] else "**missed**"
            est = f"{r['estimated_pct']:.1f} %" if r["detected"] else "–"
            lines.append(f"| {r['case']} | {'/'.join(r['planted'])} | {found} | {est} | {r['measured_pct']:.1f} % | "
                         f"{r['error_pts']:.1f} | {top} |")
        lines.append("")
    s = summarize(rows)
    for name, v in s.items():
        lines.append(f"- {name}: detection {v['detected']}/{v['cases']} = {v['detection_pct']:.1f} %, median gain "
                     f"error {v['median_error_pts']:.1f} points, max {v['max_error_pts']:.1f}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=(*SETS, "all"), default="all")
    ap.add_argument("--only", nargs="*", default=None, help="case name prefixes")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--markdown", action="store_true", help="print the tables of the stored results and exit")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--reuse-measured", action="store_true",
                    help="take the slow/fixed timings of cases already in --out instead of timing them again")
    a = ap.parse_args(argv)
    path = Path(a.out)
    stored = json.loads(path.read_text()) if path.is_file() else {"cases": []}
    if a.markdown:
        print(markdown(stored["cases"]))
        return stored
    which = list(SETS) if a.set == "all" else [a.set]
    new = run(which, a.only, a.repeats, {r["case"]: r for r in stored["cases"]} if a.reuse_measured else None)
    done = {r["case"] for r in new}
    order = {d.name: i for i, (_, d) in enumerate(cases([s for s in SETS if SETS[s].is_dir()], None))}
    rows = sorted([r for r in stored["cases"] if r["case"] not in done] + new, key=lambda r: order.get(r["case"], 1e9))
    result = {"summary": summarize(rows), "cases": rows,
              "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1, default=float))
    print(json.dumps(result["summary"], indent=1))
    return result


if __name__ == "__main__":
    main()
