"""FLOPs of matmul and convolution ops from their recorded shapes (the Chrome trace has none).

torch.profiler's ``with_flops`` computes FLOPs in C++ but only ``prof.events()`` exposes them, and
building those Python objects costs seconds on large runs. The same formulas (torch's
``computeFlops``: 2 x multiply-adds, bias ignored) are applied here once per distinct
(name, shapes, concrete inputs) triple, then mapped back to the rows by category code.

Convolutions need stride/padding/dilation, which Kineto records as "Concrete Inputs" (PyTorch 2.1+);
without them, and for transposed convolutions, the estimate is left NaN rather than guessed.
To count each multiplication once, and on the op torch itself would credit: matmuls count on the
innermost op (linear -> addmm, matmul -> mm), convolutions on the outermost (conv2d, not the
convolution/_convolution it calls).
"""

from __future__ import annotations

import math

import numpy as np
import orjson
import pandas as pd

MATMUL = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
          "aten::addbmm"}
# the dispatcher-level convolutions (backend kernels below them order their arguments differently)
_CONV = ("aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution", "aten::_convolution")


def estimate_flops(events: pd.DataFrame) -> np.ndarray:
    """FLOPs per row of ``events`` (NaN where unknown); needs name, shapes, parent, id columns."""
    n = len(events)
    out = np.full(n, np.nan)
    if n == 0 or "shapes" not in events:
        return out
    names = events["name"].astype(str) if not isinstance(events["name"].dtype, pd.CategoricalDtype) \
        else events["name"]
    wanted = names.isin(list(MATMUL) + list(_CONV)).to_numpy() & events["shapes"].notna().to_numpy()
    if not wanted.any():
        return out
    rows = np.flatnonzero(wanted)
    concrete = events["concrete"] if "concrete" in events else pd.Series([None] * n, index=events.index)
    key = pd.MultiIndex.from_arrays([names.iloc[rows].astype(str).to_numpy(),
                                     events["shapes"].iloc[rows].astype(str).to_numpy(),
                                     concrete.iloc[rows].astype(object).where(concrete.iloc[rows].notna(), "")
                                     .astype(str).to_numpy()])
    codes, uniq = pd.factorize(key)
    values = np.array([_flops(name, shapes, conc) for name, shapes, conc in uniq], dtype=np.float64)
    out[rows] = values[codes]
    if "parent" not in events or "id" not in events:
        return out
    is_conv = names.isin(list(_CONV)).to_numpy()
    has = np.isfinite(out)
    parent_row = pd.Index(events["id"].to_numpy()).get_indexer(events["parent"].to_numpy())
    result = out.copy()
    # matmul family: a parent whose child already counts the multiply gets none
    child = np.flatnonzero(has & ~is_conv & (parent_row >= 0))
    result[parent_row[child][~is_conv[parent_row[child]]]] = np.nan
    # convolutions: an inner convolution under a counted one gets none
    inner = np.flatnonzero(has & is_conv & (parent_row >= 0))
    inner = inner[is_conv[parent_row[inner]] & has[parent_row[inner]]]
    result[inner] = np.nan
    return result


def _flops(name: str, shapes: str, concrete: str) -> float:
    try:
        dims = orjson.loads(shapes)
        args = orjson.loads(concrete) if concrete else []
    except orjson.JSONDecodeError:
        return math.nan
    if not isinstance(dims, list):
        return math.nan
    try:
        if name in MATMUL:
            return _matmul(name, dims)
        return _conv(name, dims, args)
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return math.nan


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= int(x)
    return p


def _matmul(name: str, d: list) -> float:
    if name == "aten::mm":
        (m, k), (_, n) = d[0], d[1]
        return 2.0 * m * k * n
    if name == "aten::addmm":
        (m, k), (_, n) = d[1], d[2]
        return 2.0 * m * k * n
    if name == "aten::bmm":
        (b, m, k), (_, _, n) = d[0], d[1]
        return 2.0 * b * m * k * n
    if name in ("aten::baddbmm", "aten::addbmm"):
        (b, m, k), (_, _, n) = d[1], d[2]
        return 2.0 * b * m * k * n
    if name == "aten::linear":
        x, w = d[0], d[1]
        return 2.0 * _prod(x[:-1]) * x[-1] * w[0]
    # aten::matmul: numpy broadcasting rules, 1-D operands promoted then squeezed
    a, b = list(d[0]), list(d[1])
    if not a or not b:
        return math.nan
    a = [1] + a if len(a) == 1 else a
    b = b + [1] if len(b) == 1 else b
    batch = np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    return 2.0 * _prod(batch) * a[-2] * a[-1] * b[-1]


def _conv(name: str, d: list, args: list) -> float:
    x, w = d[0], d[1]
    spatial = len(x) - 2
    if spatial < 1 or len(w) != len(x):
        return math.nan
    # argument positions: convNd(input, weight, bias, stride, padding, dilation, groups);
    # convolution/_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if len(args) < 6:
        return math.nan                                       # no Concrete Inputs: stride/padding unknown
    stride, padding, dilation = args[3:6]
    if name in ("aten::conv1d", "aten::conv2d", "aten::conv3d"):
        groups = args[6] if len(args) > 6 else None
    else:
        if len(args) > 6 and _scalar(args[6]) in (1, "True", "true"):
            return math.nan                                   # transposed
        groups = args[8] if len(args) > 8 else None
    stride, dilation = _ints(stride, spatial, 1), _ints(dilation, spatial, 1)
    g = _scalar(groups)
    g = int(g) if isinstance(g, (int, float)) or (isinstance(g, str) and g.isdigit()) else 1
    kernel = w[2:]
    if isinstance(padding, str) and padding.strip("'\"") in ("valid", "same"):
        mode = padding.strip("'\"")
        out = [(i - dl * (k - 1) - 1) // s + 1 if mode == "valid" else -(-i // s)
               for i, k, s, dl in zip(x[2:], kernel, stride, dilation)]
    else:
        pad = _ints(padding, spatial, None)
        if pad is None or stride is None or dilation is None:
            return math.nan
        out = [(i + 2 * p - dl * (k - 1) - 1) // s + 1 for i, k, s, p, dl in zip(x[2:], kernel, stride, pad, dilation)]
    if min(out) <= 0:
        return math.nan
    c_in = x[1]
    return 2.0 * x[0] * w[0] * (c_in // g) * _prod(kernel) * _prod(out)


def _scalar(v):
    if isinstance(v, str):
        v = v.strip()
        try:
            return int(v)
        except ValueError:
            return v
    return v


def _ints(v, n: int, default):
    """Concrete inputs spell int lists as "[1, 1]" (or one int); None when absent."""
    if v is None or v == "":
        return [default] * n if default is not None else None
    if isinstance(v, str):
        try:
            v = orjson.loads(v)
        except orjson.JSONDecodeError:
            return None
    if isinstance(v, (int, float)):
        return [int(v)] * n
    if isinstance(v, list) and all(isinstance(i, (int, float)) for i in v):
        return [int(i) for i in v] * (n if len(v) == 1 else 1) if len(v) in (1, n) else None
    return None
