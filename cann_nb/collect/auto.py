"""Which collectors to use when the user did not say (``--collectors auto``).

torch.profiler sees only torch ops, and the Python tracer slows torch code down (tracing torch's
import alone takes seconds), so the choice follows what the code imports, read from its syntax tree
(any import form, at any depth: ``import os, torch``, ``from torch import nn``, ``import torch.nn as
nn``, inside a function, ``importlib.import_module("torch")``): the framework's collector + host
when it has one, otherwise the Python function tracer + host (numpy, pure Python); with either, the
garbage collector's passes (gc). ``--collectors`` always overrides.
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path

TORCH = ("torch", "host", "gc")
PYTHON = ("python", "host", "gc")
# top-level module -> the framework whose collector profiles it (torch's family is torch's)
FRAMEWORK_OF = {"torch": "torch", "torch_npu": "torch", "torchvision": "torch", "torchaudio": "torch",
                "tensorflow": "tensorflow", "keras": "tensorflow", "tf_keras": "tensorflow", "mindspore": "mindspore"}
# [issue 18] objects of these top-level packages (in the class's MRO) belong to a framework: a Keras 3
# model has tensorflow.* classes in its MRO when TensorFlow is its backend
OBJECT_FRAMEWORK = {"tensorflow": "tensorflow", "mindspore": "mindspore"}


def imported_frameworks(tree: ast.AST) -> list[str]:
    """Frameworks the code imports, in order of first appearance."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [node.module] if node.module and not node.level else []
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str) and _call_name(node.func) in ("import_module", "__import__")):
            mods = [node.args[0].value]
        else:
            continue
        for m in mods:
            fw = FRAMEWORK_OF.get(m.split(".")[0])
            if fw and fw not in found:
                found.append(fw)
    return found


def _call_name(func) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def for_frameworks(frameworks) -> tuple[str, ...] | None:
    """The first framework with a registered collector (+ host and gc), or None."""
    from . import names

    for fw in frameworks:
        if fw in names():
            return (fw, "host", "gc")
    return None


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
    chosen = for_frameworks(imported_frameworks(tree))
    if chosen:
        return chosen
    chosen = for_frameworks(objects_frameworks(tree, namespace))
    if chosen:
        return chosen
    if "torch" not in sys.modules:
        return PYTHON
    # no import in the cell: torch objects made by earlier cells
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    if "torch" in names or any(_torchy(namespace[n], namespace) for n in names if n in namespace):
        return TORCH
    return PYTHON


def for_script(source: str, path=None) -> tuple[str, ...]:
    """From the script's imports, and (given its ``path``) those of the modules it imports from its own
    folder (``from model import Net`` where model.py imports torch)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:   # the script fails to run anyway; its error is the user's to see
        return PYTHON
    found = imported_frameworks(tree)
    if path is not None and not for_frameworks(found):
        found += _local_imports_frameworks(tree, Path(path).resolve().parent)
    return for_frameworks(found) or PYTHON


def _local_imports_frameworks(tree: ast.AST, folder: Path, depth: int = 3, seen=None) -> list[str]:
    """Frameworks imported by the script's sibling modules (a few levels deep)."""
    seen = set() if seen is None else seen
    found: list[str] = []
    for node in ast.walk(tree):
        mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
        for m in mods:
            top = m.split(".")[0]
            for file in (folder / f"{top}.py", folder / top / "__init__.py"):
                if file in seen or not file.is_file():
                    continue
                seen.add(file)
                try:
                    sub = ast.parse(file.read_text(encoding="utf-8", errors="replace"))
                except (SyntaxError, ValueError, OSError):
                    continue
                found += imported_frameworks(sub)
                if depth > 1:
                    found += _local_imports_frameworks(sub, file.parent, depth - 1, seen)
    return found


def for_process() -> tuple[str, ...]:
    """No code to look at (the Python API): torch when it is imported, else TensorFlow or MindSpore."""
    if "torch" in sys.modules:
        return TORCH
    return for_frameworks([fw for fw in OBJECT_FRAMEWORK if fw in sys.modules]) or PYTHON


def objects_frameworks(tree: ast.AST, namespace: dict) -> list[str]:
    """[issue 18] TensorFlow / MindSpore objects (made by earlier cells) that the cell names: a cell that only
    calls ``model.predict(x)``. Only frameworks already imported are looked for (nothing is imported)."""
    loaded = [fw for fw in OBJECT_FRAMEWORK if fw in sys.modules]
    if not loaded:
        return []
    found: list[str] = []
    for n in sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}):
        _object_frameworks(namespace.get(n), namespace, loaded, found)
    return found


def _object_frameworks(obj, namespace: dict, loaded: list, found: list, depth: int = 0) -> None:
    if obj is None:
        return
    code = getattr(obj, "__code__", None)
    if code is not None and depth < 2:   # a user function: the globals it names (one or two levels deep)
        for n in code.co_names:
            if n in namespace:
                _object_frameworks(namespace[n], namespace, loaded, found, depth + 1)
        return
    mods = ([obj.__name__] if isinstance(obj, types.ModuleType) else
            [getattr(k, "__module__", "") or "" for k in getattr(obj if isinstance(obj, type) else type(obj),
                                                                 "__mro__", ())])
    for m in mods:
        fw = OBJECT_FRAMEWORK.get(m.split(".")[0])
        if fw in loaded and fw not in found:
            found.append(fw)
