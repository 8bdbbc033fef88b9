"""Which collectors to use when the user did not say (``--collectors auto``).

torch.profiler sees only torch ops, and the Python tracer slows torch code down, so the choice
follows what the code touches: torch + host when it uses torch objects, otherwise the Python
function tracer + host (numpy, pure Python). ``--collectors`` always overrides.
"""

from __future__ import annotations

import ast
import re
import sys
import types

TORCH = ("torch", "host")
PYTHON = ("python", "host")
_TORCH_IMPORT = re.compile(r"^\s*(import\s+torch|from\s+torch[\s.])", re.MULTILINE)


def _torchy(obj, namespace: dict, depth: int = 0) -> bool:
    if isinstance(obj, types.ModuleType):
        return obj.__name__.split(".")[0] == "torch"
    cls = obj if isinstance(obj, type) else type(obj)
    if any((getattr(k, "__module__", "") or "").split(".")[0] == "torch" for k in getattr(cls, "__mro__", ())):
        return True
    code = getattr(obj, "__code__", None)
    if code is not None and depth < 2:
        # a user function: torchy if the globals it names are (one or two levels deep)
        return any(_torchy(namespace.get(n), namespace, depth + 1) for n in code.co_names if n in namespace)
    return False


def for_cell(tree: ast.AST, namespace: dict) -> tuple[str, ...]:
    if "torch" not in sys.modules:
        return PYTHON
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    if "torch" in names or any(_torchy(namespace[n], namespace) for n in names if n in namespace):
        return TORCH
    if any(isinstance(n, (ast.Import, ast.ImportFrom)) and "torch" in ast.unparse(n) for n in ast.walk(tree)):
        return TORCH
    return PYTHON


def for_script(source: str) -> tuple[str, ...]:
    return TORCH if _TORCH_IMPORT.search(source) else PYTHON


def for_process() -> tuple[str, ...]:
    """No code to look at (the Python API): torch when it is imported."""
    return TORCH if "torch" in sys.modules else PYTHON
