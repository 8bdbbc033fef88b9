"""What a line of the user's source says about its work, for the Python tracer's line samples
(collect/line_arrays.py): which names it reads and writes, how it indexes them, which compute-heavy calls it
makes, the matrix products it chains and the einsums it calls. Parsed once per file; a line's facts are
worked out when it is first sampled, from its own statement only.
"""

from __future__ import annotations

import ast
import bisect
import linecache
from typing import NamedTuple

MATMUL_CALLS = {"dot", "matmul", "einsum", "tensordot", "inner", "vdot", "solve", "inv", "lstsq", "cholesky",
                "svd", "eigh", "eig", "qr", "multi_dot", "matrix_power"}
TRANSCENDENTAL_CALLS = {"exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "tanh", "sinh", "cosh", "sin",
                        "cos", "tan", "arctan", "arcsin", "arccos", "arctan2", "power", "erf", "sigmoid", "logaddexp"}
# arithmetic an array's dtype makes slow or fast (besides the operators + - * / // % ** and their augmented
# forms): reductions and the elementwise calls numpy runs in SIMD loops for float32/float64
ARITHMETIC_CALLS = {"sum", "mean", "std", "var", "prod", "cumsum", "cumprod", "average", "norm", "sqrt", "square",
                    "abs", "absolute", "add", "subtract", "multiply", "divide", "maximum", "minimum", "clip"}
ARITHMETIC_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
ORDER_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)   # the comparisons that make a mask of an array
# general eigensolvers, which a symmetric matrix does not need (eigh, eigvalsh)
GENERAL_SOLVERS = {"eig", "eigvals"}
# solvers that factorise their matrix on every call (LU, Cholesky, QR/SVD) before solving for the right-hand side
SOLVE_CALLS = {"solve", "spsolve", "lstsq"}
# calls that move an array's data into a new array of about its size (a shift, a concatenation of its pieces)
# calls that copy an object whole (df.copy(), np.copy, copy.deepcopy, t.clone())
COPY_CALLS = {"copy", "deepcopy", "clone"}
MOVEMENT_CALLS = {"roll", "concatenate", "hstack", "vstack", "column_stack", "append", "delete", "insert", "cat"}
# calls that run a Python function (or a string method) once per element of a Series or array
PER_ELEMENT_CALLS = {"apply", "map", "applymap", "transform", "vectorize"}
_RANK = {"columns": 0, "rows": 1, "mask": 2}   # the strongest index kind of a name on a line wins
# calls that keep a few elements of what they are given (an extreme, a top-k, the matches of a condition)
SELECT_CALLS = {"argmin", "argmax", "nanargmin", "nanargmax", "min", "max", "nanmin", "nanmax", "amin", "amax",
                "idxmin", "idxmax", "nsmallest", "nlargest", "argpartition", "partition", "topk", "kthvalue",
                "nonzero", "flatnonzero", "argwhere", "where", "query", "dropna", "compress", "extract"}
INDEXERS = {"loc", "iloc", "at", "iat"}   # df.loc[mask] indexes df
# built-ins that iterate their argument element by element in Python objects (numpy scalars for an array)
ITERATING_BUILTINS = {"sum", "min", "max", "sorted", "any", "all", "list", "tuple", "set"}


class LineFacts(NamedTuple):
    """names: {name: "in" | "out" | "inout"}; indexed: {name: "rows" | "columns" | "mask"}; work: sorted
    kinds of compute-heavy call ("matmul", "per_element", "transcendental", "movement", "arithmetic",
    "copy"); contractions: the matrix-product chains and einsums (see ``_contraction``); columns: {name: [labels]} of ``df["label"]`` subscripts."""
    names: dict
    indexed: dict
    work: list
    contractions: list
    columns: dict
    stored: tuple = ()   # names whose items the statement assigns or deletes (``a[i, j] = v``)
    selected: tuple = ()   # names a few elements are selected from (``SELECT_CALLS``, ``a[mask]``, ``df.loc[idx]``)
    returns: bool = False   # the statement is a ``return`` (its value is the line's result)
    iterated: dict = {}   # {name: built-in}: names a built-in iterates element by element (``sum(a)``)
    compared: tuple = ()   # names compared against something else (``ids == key``, ``x > t``): a mask of them


NO_FACTS = LineFacts({}, {}, [], [], {})


class SourceFacts:
    """What a file's source says about a line (its statement, parsed once per file):

    * names: the names the statement loads and stores;
    * indexed: the names indexed there, and whether the index selects along the first axis (``a[i]``,
      ``a[idx, :]``), keeps it whole (``a[:, j]``, ``df["col"]``), or is a mask compared from the object
      itself (``df[df["k"] == v]``);
    * work: the compute-heavy kinds of call it makes (``a @ b``, np.dot/einsum/linalg: "matmul";
      np.exp/tanh/log/...: "transcendental"; operators and reductions, ``a - a.mean()``: "arithmetic"),
      whose speed depends on the dtype's width, the calls that run a function per element
      ("per_element": ``.apply``, ``.map``, ``.str.*``, a comprehension), the calls that copy an
      array's data into a new one ("movement": np.roll, np.concatenate, np.append) and those that copy an
      object whole ("copy": ``df.copy()``, ``np.copy``, ``copy.deepcopy``);
    * contractions: each chain of matrix products (``A @ B @ v``, nested ``np.dot``) as the tree of its
      operands as written and evaluated (``{"kind": "matmul", "tree": [["A", "B"], "v"]}``), and each
      ``np.einsum`` with a literal subscripts string and no ``optimize`` (``{"kind": "einsum",
      "subscripts": "ij,jk->ik", "operands": ["A", "B"]}``), and each ``np.convolve``/``np.correlate``
      (``{"kind": "convolve", "operands": ["x", "h"]}``), each general eigensolver call (``{"kind": "eig",
      "fn": "eig", "operands": ["A"]}``) and each inverse multiplied in the same expression (``inv(A) @ b``:
      ``{"kind": "inv_product", "operands": ["A", "b"]}``) and each solve (``spsolve(A, b)``: ``{"kind":
      "solve", "fn": "spsolve", "operands": ["A", "b"]}``); operands are names, or ``name.T``;
    * stored: the names whose items it assigns or deletes (``a[i, j] = v``, ``del d[k]``);
    * selected: the names it selects a part of: a selection call on them (``d.argmin(axis=1)``,
      ``np.flatnonzero(d)``, ``df.nsmallest(5, "x")``, ``SELECT_CALLS``) or an index computed at run time
      (``a[mask]``, ``a[a > 0]``, ``df.loc[idx, cols]``: a name or a comparison in the index);
    * returns: whether it is a ``return`` statement;
    * iterated: the names given to a built-in that iterates them element by element (``sum(a)``, ``max(a)``,
      ``sorted(a)``, ``list(a)``: ``ITERATING_BUILTINS``), with the built-in's name;
    * columns: the string labels a name is subscripted with (``df["price"]``) and the attributes read from it
      (``df.price``, ``np.exp``: the sampler keeps those that are columns of a DataFrame).

    A compound statement (for, if, with, def) counts its header only. An unreadable source says nothing:
    no line of that file is described.
    """

    _BODIES = ("body", "orelse", "finalbody", "handlers", "cases")

    def __init__(self, filename: str):
        self._stmts: list = []
        self._cache: dict[int, LineFacts] = {}
        src = "".join(linecache.getlines(filename))
        try:
            tree = ast.parse(src) if src else None
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            self._collect(tree.body)
            self._stmts.sort(key=lambda st: st.lineno)   # pre-order is already sorted but for decorators
            self._starts = [st.lineno for st in self._stmts]

    def _collect(self, body) -> None:
        for st in body:
            if not isinstance(st, ast.AST):
                continue
            if isinstance(st, ast.stmt):
                self._stmts.append(st)
            for field in self._BODIES:
                sub = getattr(st, field, None)
                if isinstance(sub, list):
                    self._collect(sub)

    def line(self, lineno: int) -> LineFacts:
        got = self._cache.get(lineno)
        if got is None:
            got = self._cache[lineno] = self._facts(self._statements(lineno))
        return got

    def _statements(self, lineno: int) -> list:
        """The innermost statement spanning the line (children start after their parent), with the others
        that start on the same line and span it (``a = f(x); b = g(a)``, ``if c: y = h(c)``)."""
        if not self._stmts:
            return []
        k = bisect.bisect_right(self._starts, lineno) - 1
        found: list = []
        while k >= 0:
            st = self._stmts[k]
            if found and st.lineno != found[0].lineno:
                break
            if st.lineno <= lineno <= (st.end_lineno or st.lineno):
                found.append(st)
            k -= 1
        return found

    def _facts(self, stmts: list) -> LineFacts:
        if not stmts:
            return NO_FACTS
        names: dict[str, str] = {}
        indexed: dict[str, str] = {}
        columns: dict[str, list] = {}
        stored: set = set()
        selected: set = set()
        iterated: dict = {}
        compared: set = set()
        work: set = set()
        contractions: list = []
        inside: set = set()   # nodes already part of a contraction found higher up
        roots = []
        for st in stmts:
            roots += [v for f, v in ast.iter_fields(st) if f not in self._BODIES] if hasattr(st, "body") else [st]
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                names[st.target.id] = "inout"   # x += y reads x too (in place: the same object after)
        for st in stmts:
            product = _broadcast_product(st)
            if product is not None:
                contractions.append(product)
        for root in roots:
            for node in (n for r in (root if isinstance(root, list) else [root]) if isinstance(r, ast.AST)
                         for n in ast.walk(r)):   # breadth first: an outer product before its parts
                if isinstance(node, ast.Name):
                    role = "in" if isinstance(node.ctx, ast.Load) else ("out" if isinstance(node.ctx, ast.Store) else None)
                    if role and names.get(node.id) != "inout":
                        was = names.get(node.id)
                        names[node.id] = role if was in (None, role) else "inout"
                    continue
                if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                    kind = _index_kind(node)
                    if _RANK[kind] > _RANK.get(indexed.get(node.value.id), -1):   # df[df["k"] == v] is a mask
                        indexed[node.value.id] = kind
                    if isinstance(node.ctx, (ast.Store, ast.Del)):
                        stored.add(node.value.id)
                    elif _computed_index(node.slice):
                        selected.add(node.value.id)
                    if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) \
                            and isinstance(node.ctx, ast.Load):   # a column read, not one assigned
                        labels = columns.setdefault(node.value.id, [])
                        if node.slice.value not in labels:
                            labels.append(node.slice.value)
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                        and isinstance(node.ctx, ast.Load) and node.attr != "T":
                    labels = columns.setdefault(node.value.id, [])   # df.city: a column if the frame has one
                    if node.attr not in labels:
                        labels.append(node.attr)
                elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                    work.add("per_element")
                if id(node) not in inside:
                    c = _contraction(node)
                    if c is not None:
                        contractions.append(c)
                        inside.update(id(n) for n in ast.walk(node))
                if isinstance(node, ast.Compare) and all(isinstance(op, ORDER_OPS) for op in node.ops):
                    sides = [x.id if isinstance(x, ast.Name) else None for x in (node.left, *node.comparators)]
                    # a name against anything but itself (x == x is a NaN test, not a lookup)
                    compared.update(n for n in set(sides) if n and any(x != n for x in sides))
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                    work.add("matmul")
                elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ARITHMETIC_OPS):
                    work.add("arithmetic")
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                        and isinstance(node.value, ast.Attribute) and node.value.attr in INDEXERS \
                        and isinstance(node.value.value, ast.Name) and _computed_index(node.slice):
                    selected.add(node.value.value.id)   # df.loc[mask, cols]
                elif isinstance(node, ast.Call):
                    fn = _call_name(node)
                    if isinstance(node.func, ast.Name) and fn in ITERATING_BUILTINS and len(node.args) == 1 \
                            and isinstance(node.args[0], ast.Name):
                        iterated[node.args[0].id] = fn
                    if fn in SELECT_CALLS:
                        target = _selected_name(node)
                        if target:
                            selected.add(target)
                    if fn in COPY_CALLS:
                        work.add("copy")
                    if fn in MOVEMENT_CALLS:
                        work.add("movement")
                    if fn in MATMUL_CALLS:
                        work.add("matmul")
                    elif fn in TRANSCENDENTAL_CALLS:
                        work.add("transcendental")
                    elif fn in ARITHMETIC_CALLS:
                        work.add("arithmetic")
                    if _is_str_accessor(node.func) or (fn in PER_ELEMENT_CALLS and node.args and not isinstance(
                            node.args[0], (ast.Dict, ast.DictComp, ast.Constant))):   # s.map({...}) is a lookup
                        work.add("per_element")
        return LineFacts(names, indexed, sorted(work), contractions, columns, tuple(sorted(stored)),
                         tuple(sorted(selected)), any(isinstance(st, ast.Return) for st in stmts), iterated,
                         tuple(sorted(compared)))


def _computed_index(index) -> bool:
    """An index known only at run time: it holds a name or a comparison (``a[mask]``, ``a[idx, :]``,
    ``a[a > 0]``), not only constants and slices (``a[:, 0]``, ``df["col"]``)."""
    return any(isinstance(n, (ast.Name, ast.Compare)) for n in ast.walk(index))


def _selected_name(call: ast.Call) -> str | None:
    """The name a selection call selects from: ``d.argmin(...)`` -> d, ``np.argmin(d, ...)`` -> d (a module
    or a name's method: the first argument when the call is on a module alias such as np)."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id in ("np", "numpy", "torch", "pd", "pandas") and call.args:
            return call.args[0].id if isinstance(call.args[0], ast.Name) else None
        return func.value.id
    if isinstance(func, ast.Name) and call.args and isinstance(call.args[0], ast.Name):
        return call.args[0].id   # from numpy import argmin
    return None


def _call_name(node: ast.Call) -> str | None:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)


def _is_str_accessor(func) -> bool:
    """``s.str.lower`` (pandas' string methods run per element, in Python)."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "str"


def _operand(node) -> str | None:
    """A contraction operand the sampler can describe: a name, or a name transposed (``A.T``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.value, ast.Name):
        return node.value.id + ".T"
    return None


def _product_tree(node):
    """The operands of a matrix product as the nested pairs it is evaluated in (``A @ B @ v`` is
    ``[["A", "B"], "v"]``); a leaf is an operand; None when a leaf is anything else."""
    pair = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        pair = (node.left, node.right)
    elif isinstance(node, ast.Call) and _call_name(node) in ("dot", "matmul") and len(node.args) == 2 \
            and not node.keywords:
        pair = tuple(node.args)
    if pair is None:
        return _operand(node)
    left, right = _product_tree(pair[0]), _product_tree(pair[1])
    return None if left is None or right is None else [left, right]


def _leaves(tree) -> int:
    return 1 if isinstance(tree, str) else _leaves(tree[0]) + _leaves(tree[1])


def _contraction(node) -> dict | None:
    """A chain of three or more matrix products (whose order sets its FLOPs), an einsum of two or more
    operands left on numpy's default ``optimize=False``, a numpy convolution (always direct), a general
    eigensolver, an inverse multiplied, or a solve (which factorises its matrix each call)."""
    tree = _product_tree(node)
    if isinstance(tree, list) and _leaves(tree) >= 3:
        return {"kind": "matmul", "tree": tree}
    if isinstance(node, ast.Call) and _call_name(node) in GENERAL_SOLVERS and len(node.args) == 1 \
            and _operand(node.args[0]) and not node.keywords:
        return {"kind": "eig", "fn": _call_name(node), "operands": [_operand(node.args[0])]}
    if isinstance(node, ast.Call) and _call_name(node) in SOLVE_CALLS and len(node.args) >= 2 \
            and _operand(node.args[0]):   # (a right-hand side computed in the call has no name: None)
        return {"kind": "solve", "fn": _call_name(node), "operands": [_operand(a) for a in node.args[:2]]}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and isinstance(node.left, ast.Call) \
            and _call_name(node.left) in ("inv", "inverse") and len(node.left.args) == 1 \
            and _operand(node.left.args[0]) and _operand(node.right):
        return {"kind": "inv_product", "operands": [_operand(node.left.args[0]), _operand(node.right)]}
    if isinstance(node, ast.Call) and _call_name(node) in ("convolve", "correlate") and len(node.args) >= 2 \
            and isinstance(node.func, ast.Attribute) and getattr(node.func.value, "id", None) in ("np", "numpy"):
        ops = [_operand(a) for a in node.args[:2]]   # numpy's are direct; scipy.signal's pick the FFT
        return {"kind": "convolve", "operands": ops} if all(ops) else None
    summed = _broadcast_sum(node)
    if summed is not None:
        return summed
    if isinstance(node, ast.Call) and _call_name(node) == "einsum" and len(node.args) >= 3 \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        opt = [k for k in node.keywords if k.arg == "optimize"]
        if opt and not (isinstance(opt[0].value, ast.Constant) and opt[0].value.value is False):
            return None
        ops = [_operand(a) for a in node.args[1:]]
        if all(ops):
            return {"kind": "einsum", "subscripts": node.args[0].value, "operands": ops}
    return None


def _broadcast_operand(node) -> dict | None:
    """An operand of an elementwise product the sampler can shape: a name, or a name with a basic index of
    whole slices, ``None`` (a new axis) and scalars (an int, or a name: an array there is fancy indexing,
    which the analysis rules out by the name's sample): ``{"name": "r", "index": [":", "#k", None]}``."""
    if isinstance(node, ast.Name):
        return {"name": node.id, "index": None}
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    index = []
    for it in items:
        if isinstance(it, ast.Slice) and it.lower is None and it.upper is None and it.step is None:
            index.append(":")
        elif (isinstance(it, ast.Constant) and it.value is None) or (
                isinstance(it, ast.Attribute) and it.attr == "newaxis"):
            index.append(None)
        elif isinstance(it, ast.Constant) and isinstance(it.value, int) and not isinstance(it.value, bool):
            index.append("#")
        elif isinstance(it, ast.Name):
            index.append("#" + it.id)
        else:
            return None
    return {"name": node.value.id, "index": index}


def _product_operands(node) -> list | None:
    """The operands of ``a * b * c`` (numbers left out), each a ``_broadcast_operand``; None when one is
    anything else or fewer than two are arrays."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _product_operands(node.left), _product_operands(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return []
    op = _broadcast_operand(node)
    return None if op is None else [op]


def _broadcast_sum(node) -> dict | None:
    """``(a[:, None] * b).sum(axis=0)``, ``np.sum(a * b[None], axis=(1, 2))``, ``.mean`` alike: a product
    reduced over axes (``axis``: an int, a tuple, or None for all), which is a contraction when the
    operands broadcast and share a summed axis (the analysis decides from their sampled shapes)."""
    if not isinstance(node, ast.Call) or _call_name(node) not in ("sum", "mean"):
        return None
    if isinstance(node.func, ast.Attribute) and getattr(node.func.value, "id", None) in ("np", "numpy"):
        if not node.args:
            return None
        target, rest = node.args[0], node.args[1:]
    elif isinstance(node.func, ast.Attribute):
        target, rest = node.func.value, node.args
    else:
        return None
    axis_node = rest[0] if rest else next((k.value for k in node.keywords if k.arg == "axis"), None)
    if axis_node is None:
        axis = None
    elif isinstance(axis_node, ast.Constant) and isinstance(axis_node.value, int):
        axis = [axis_node.value]
    elif isinstance(axis_node, ast.UnaryOp) and isinstance(axis_node.op, ast.USub) \
            and isinstance(axis_node.operand, ast.Constant) and isinstance(axis_node.operand.value, int):
        axis = [-axis_node.operand.value]
    elif isinstance(axis_node, ast.Tuple) and all(isinstance(e, ast.Constant) and isinstance(e.value, int)
                                                  for e in axis_node.elts):
        axis = [e.value for e in axis_node.elts]
    else:
        return None
    ops = _product_operands(target)
    if ops is None or len(ops) < 2:
        return None
    return {"kind": "broadcast_sum", "operands": ops, "axis": axis}


def _broadcast_product(st) -> dict | None:
    """``outer = d[:, :, None] * d[:, None, :]``: a product of operands given new axes, assigned to a name
    (a later line may sum it: a contraction written out in two statements)."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
        return None
    ops = _product_operands(st.value)
    if ops is None or len(ops) < 2 or not any(None in (o["index"] or ()) for o in ops):
        return None
    return {"kind": "broadcast_product", "operands": ops, "target": st.targets[0].id}


def _index_kind(node) -> str:
    """How ``name[...]`` indexes: "mask" (a comparison involving the name itself), "columns" (a whole
    first axis, or a label string) or "rows"."""
    name = node.value.id
    if any(isinstance(c, ast.Compare) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(c))
           for c in ast.walk(node.slice)):
        return "mask"
    first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
    whole = isinstance(first, ast.Slice) and first.lower is None and first.upper is None and first.step is None
    label = isinstance(first, ast.Constant) and isinstance(first.value, str)   # df["col"]
    return "columns" if whole or label else "rows"
