"""A rule's false positives on well-written code: every case's ``fixed.py`` profiled as a user would
(``cann_nb run``, default flags) and the findings of the named rules listed. A rule should find nothing
here, or only what a case's fix left on purpose.

    python benchmarks/advisor/twins.py --rules repeated_library_calls repeated_calls
    python benchmarks/advisor/twins.py --rules recomputed_values --torch only --set heldout15
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from run_scripts import SETS, _python, cases


def profile_fixed(case: Path, tmp: Path) -> list[dict]:
    import json

    store = tmp / "store"
    r = _python("-m", "cann_nb", "run", str(case / "fixed.py"), "--output", str(store), "-n", case.name, "--quiet")
    if r.returncode:
        raise RuntimeError(f"cann_nb run {case.name}/fixed.py: exit {r.returncode}\n{r.stderr[-2000:]}")
    r = _python("-m", "cann_nb", "analyze", case.name, "--store", str(store), "--json")
    if r.returncode:
        raise RuntimeError(f"cann_nb analyze {case.name}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return json.loads(r.stdout)["findings"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", nargs="+", required=True)
    ap.add_argument("--set", choices=(*SETS, "all"), default="all")
    ap.add_argument("--only", nargs="*", default=None, help="case name prefixes")
    ap.add_argument("--torch", choices=("any", "only", "none"), default="any",
                    help="only the cases whose fixed.py imports torch, or only those that do not")
    ap.add_argument("--skip", nargs="*", default=(), help="sets left out of 'all' (one not yet graded blind)")
    args = ap.parse_args()
    which = [s for s in SETS if s not in args.skip] if args.set == "all" else [args.set]
    flagged = total = 0
    for set_name, case in cases(which, args.only):
        uses_torch = "import torch" in (case / "fixed.py").read_text()
        if (args.torch == "only" and not uses_torch) or (args.torch == "none" and uses_torch):
            continue
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as d:
            hits = [f for f in profile_fixed(case, Path(d)) if f["rule"] in args.rules]
        total += 1
        flagged += bool(hits)
        shown = "; ".join(f"{f['rule']} {f['est_gain_pct'] or 0:.0f}%: {f['title'][:160]}" for f in hits) or "-"
        print(f"{set_name:9s} {case.name:36s} {time.perf_counter() - t0:5.1f}s {shown}", flush=True)
    print(f"{flagged} of {total} fixed twins get a finding of {', '.join(args.rules)}")


if __name__ == "__main__":
    main()
