"""The Python tracer's spans as masks and codes, computed once per profile (ctx.memo): which are calls,
C calls and lines (``call_kind``), which belong to the user's own code, and the ``file_line`` column as
category codes, so that rules find a function's or a line's rows without a Python string per event."""

from __future__ import annotations

import numpy as np
import pandas as pd


def call_kinds(ctx) -> dict:
    """{"py" | "c" | "line": mask} of the Python tracer's spans (all False without a ``call_kind`` column)."""
    return ctx.memo("python_call_kinds", lambda: _call_kinds(ctx))


def _call_kinds(ctx) -> dict:
    if "call_kind" not in ctx.events:
        return {k: np.zeros(ctx.n, dtype=bool) for k in ("py", "c", "line")}
    col = ctx.events["call_kind"]
    col = col if isinstance(col.dtype, pd.CategoricalDtype) else col.astype("category")
    codes = col.cat.codes.to_numpy()
    cats = [str(c) for c in col.cat.categories]
    return {k: (codes == cats.index(k)) if k in cats else np.zeros(len(codes), dtype=bool) for k in ("py", "c", "line")}


def places(ctx) -> tuple[np.ndarray, pd.Index]:
    """(per row: the code of its ``file_line``, -1 where none; the file_lines those codes index)."""
    return ctx.memo("python_places", lambda: _places(ctx))


def _places(ctx) -> tuple[np.ndarray, pd.Index]:
    if "file_line" not in ctx.events:
        return np.full(ctx.n, -1, dtype=np.int64), pd.Index([], dtype=object)
    col = ctx.events["file_line"]
    col = col if isinstance(col.dtype, pd.CategoricalDtype) else col.astype("category")
    return col.cat.codes.to_numpy().astype(np.int64), pd.Index([str(c) for c in col.cat.categories])


def user_frames(ctx) -> np.ndarray:
    """Python spans of the user's code: calls of functions in a file whose lines the tracer traced, and
    those lines (per distinct file_line, not per event)."""
    return ctx.memo("python_user_frames", lambda: _user_frames(ctx))


def place_parts(ctx) -> tuple[np.ndarray, np.ndarray]:
    """(file, line number) of each of ``places``' file_lines, by code (-1 where the line is not a number)."""
    def split():
        parts = [str(c).rpartition(":") for c in places(ctx)[1]]
        return (np.array([p[0] for p in parts], dtype=object),
                np.array([int(p[2]) if p[2].isdigit() else -1 for p in parts], dtype=np.int64))
    return ctx.memo("python_place_parts", split)


def _user_frames(ctx) -> np.ndarray:
    kind = call_kinds(ctx)
    codes, index = places(ctx)
    if not len(index):
        return np.zeros(ctx.n, dtype=bool)
    files = place_parts(ctx)[0]
    traced = np.unique(codes[kind["line"] & (codes >= 0)])
    user_file = np.isin(files, files[traced]) if len(traced) else np.zeros(len(files), dtype=bool)
    return (codes >= 0) & user_file[np.maximum(codes, 0)] & (kind["py"] | kind["line"])
