"""Regenerate the parts of docs/*.md that come from the code or from benchmark results.

    python docs/generate.py            # rewrite the generated blocks in place
    python docs/generate.py --check    # exit 1 and name the stale blocks (tests/test_docs.py runs this)

A generated block sits between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``;
everything outside the markers is hand-written. Blocks:

* ``rules``: the advisor's rules table from ``cann_nb.analyze.rules.rules_table()``;
* ``rule-details``: each rule's docstring (what it looks for, how it estimates the gain);
* ``monitor-rules``: the anomaly rules of continuous monitoring (``cann_nb.monitor.rules_table()``);
* ``advisor-accuracy``: the Advisor results table and summary of benchmarks/README.md, copied verbatim.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end generated: (?P=name) -->)", re.S)


def _fmt_value(key: str, value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if key.endswith("_ns"):
        for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
            if value >= scale:
                return f"{value / scale:g} {unit}"
        return f"{value:g} ns"
    if key.endswith("_bytes"):
        for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if value >= scale:
                return f"{value / scale:g} {unit}"
        return f"{value:g} B"
    if key.endswith(("_pct", "pct")):
        return f"{value:g} %"
    return f"{value:g}"


def _thresholds(th: dict) -> str:
    return ", ".join(f"`{k}` {_fmt_value(k, v)}" for k, v in th.items()) or "-"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def rules_block() -> str:
    from cann_nb.analyze.rules import rules_table

    t = rules_table()
    lines = ["| rule | category | detects | thresholds | gain method | needs | source |",
             "|---|---|---|---|---|---|---|"]
    for r in t.to_dict("records"):
        lines.append("| " + " | ".join([
            f"`{r['id']}`", r["category"], _cell(r["title"]), _cell(_thresholds(r["thresholds"])),
            _cell(r["gain"] or "none (no estimate)"), ", ".join(r["needs"]) or "any profile", _cell(r["source"]),
        ]) + " |")
    return "\n".join(lines) + "\n"


def rule_details_block() -> str:
    from cann_nb.analyze.rules import all_rules

    out = []
    for r in all_rules():
        doc = " ".join((r.fn.__doc__ or "").split())
        out.append(f"- **`{r.id}`** ({r.category}): {doc or r.title + '.'}")
    return "\n".join(out) + "\n"


def monitor_rules_block() -> str:
    from cann_nb.monitor import rules_table

    lines = ["| rule | metric | flags | thresholds | why |", "|---|---|---|---|---|"]
    for r in rules_table().to_dict("records"):
        lines.append(f"| `{r['id']}` | {r['metric']} | {_cell(r['title'])} | {_cell(_thresholds(r['thresholds']))} | "
                     f"{_cell(r['why'])} |")
    return "\n".join(lines) + "\n"


def advisor_accuracy_block() -> str:
    """The Advisor section's results table and its bold summary line, from benchmarks/README.md."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Advisor", 1)[1].split("\n## ", 1)[0]
    # every results table (with the bold line naming it) and every bold summary line, in order
    groups, prev = [], False
    for ln in section.splitlines():
        keep = ln.startswith("|") or ln.startswith("**")
        if keep:
            if not (prev and ln.startswith("|")):
                groups.append([])
            groups[-1].append(ln)
        prev = keep
    if not any(g[0].startswith("|") or (len(g) > 1) for g in groups) or \
            not any(ln.startswith("**Summary") for g in groups for ln in g):
        raise SystemExit("benchmarks/README.md: the Advisor section has no results table or summary line")
    return "\n\n".join("\n".join(g) for g in groups) + "\n"


BLOCKS = {
    "rules": rules_block,
    "rule-details": rule_details_block,
    "monitor-rules": monitor_rules_block,
    "advisor-accuracy": advisor_accuracy_block,
}


def regenerate(text: str) -> str:
    def sub(m):
        name = m.group("name")
        if name not in BLOCKS:
            raise SystemExit(f"unknown generated block {name!r} (known: {', '.join(BLOCKS)})")
        return m.group(1) + BLOCKS[name]() + m.group(4)

    return BLOCK.sub(sub, text)


def stale_files() -> list[Path]:
    return [p for p in sorted(DOCS.glob("*.md")) if regenerate(p.read_text(encoding="utf-8")) != p.read_text(encoding="utf-8")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only report stale files (exit 1 if any)")
    args = ap.parse_args(argv)
    stale = stale_files()
    if args.check:
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)} (run: python docs/generate.py)")
        return 1 if stale else 0
    for p in stale:
        p.write_text(regenerate(p.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"updated {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
