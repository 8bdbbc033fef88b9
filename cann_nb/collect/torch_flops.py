"""FLOPs of matmul and convolution ops from their recorded shapes (the Chrome trace has none), stored in
the ``flops`` column by ``--flops`` with torch's own attribution (checked against ``with_flops``).

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
    # the formulas live with the roofline analysis (analyze/efficiency/formulas.py); imported here,
    # not at module level, so collect/ stays above analyze/ in the flow
    from ..analyze.efficiency.formulas import conv_flops, matmul_flops

    try:
        dims = orjson.loads(shapes)
        args = orjson.loads(concrete) if concrete else []
    except orjson.JSONDecodeError:
        return math.nan
    if not isinstance(dims, list):
        return math.nan
    try:
        short = name.rsplit("::", 1)[-1]
        if name in MATMUL:
            return matmul_flops(short, dims)
        return conv_flops(short, dims, args if isinstance(args, list) else [])[0]
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return math.nan
