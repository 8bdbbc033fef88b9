"""The folder tree is the flow (docs/architecture.md): collect/ingest -> model -> store -> analyze ->
widgets -> report, with the front ends (frontends/, monitor/) on top. Data and analysis never import a
view or a front end, not even inside a function; and there is no import cycle between the package's
parts. (../shared/tools/check_layers.py checks the same with the layout's earlier names.)"""

from __future__ import annotations

import ast
from pathlib import Path

import cann_nb

PACKAGE = Path(cann_nb.__file__).parent
# each part may import only the parts listed before it (and itself)
ORDER = ["errors", "formatting", "model", "store", "ingest", "collect", "analyze", "widgets", "report",
         "monitor", "frontends"]
LOW = {"errors", "formatting", "model", "ingest", "collect", "store", "analyze"}
HIGH = {"widgets", "report", "monitor", "frontends"}


def _imports():
    """(importing part, imported part, file:line, at module level) for every import of the package's own code."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        mod = parts[:-1] if is_pkg else parts
        if len(mod) < 2:
            continue            # cann_nb/__init__.py, the facade, wires everything together
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = set(map(id, tree.body))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = mod if is_pkg else mod[:-1]
                target = (base[: len(base) - node.level + 1] + (node.module or "").split(".") if node.level
                          else (node.module or "").split("."))
                targets = [[*target, a.name] for a in node.names] if len(target) < 2 or target[1] == "" else [target]
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".") for a in node.names]
            else:
                continue
            for t in targets:
                t = [x for x in t if x]
                if len(t) >= 2 and t[0] == "cann_nb" and t[1] != mod[1]:
                    yield mod[1].removesuffix(".py"), t[1], f"{path.name}:{node.lineno}", id(node) in top


def test_data_and_analysis_never_import_a_view_or_front_end():
    wrong = [f"{src} imports {dst} ({where})" for src, dst, where, _ in _imports() if src in LOW and dst in HIGH]
    assert not wrong, wrong


def test_imports_at_module_level_point_down_the_flow():
    """Every module-level import goes to a part earlier in ORDER: so there can be no cycle."""
    rank = {p: i for i, p in enumerate(ORDER)}
    wrong = [f"{src} imports {dst} ({where})" for src, dst, where, top in _imports()
             if top and src in rank and dst in rank and rank[dst] > rank[src]]
    assert not wrong, wrong
