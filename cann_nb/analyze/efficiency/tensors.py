"""Recorded shapes and dtypes -> tensors.

Two spellings reach the events table: Kineto's JSON (``[[1,141,512],[],[512]]`` with
``["c10::BFloat16","Scalar","float"]``) and Ascend's (``32,3,224,224;64,3,11,11;;`` with
``float;None;Scalar``). An input is a tensor when its dtype names a tensor element type; scalars,
scalar lists and missing (None/"") inputs are not.
"""

from __future__ import annotations

import math
import re

import orjson

# element size in bytes and the dtype class peaks are tabled by
_DTYPES = {
    "float": (4, "fp32"), "float32": (4, "fp32"), "fp32": (4, "fp32"), "dt_float": (4, "fp32"),
    "double": (8, "fp64"), "float64": (8, "fp64"), "fp64": (8, "fp64"), "dt_double": (8, "fp64"),
    "half": (2, "fp16"), "float16": (2, "fp16"), "fp16": (2, "fp16"), "dt_float16": (2, "fp16"),
    "bfloat16": (2, "bf16"), "bf16": (2, "bf16"), "dt_bf16": (2, "bf16"),
    "float8_e4m3fn": (1, "fp8"), "float8_e5m2": (1, "fp8"), "float8_e4m3fnuz": (1, "fp8"),
    "float8_e5m2fnuz": (1, "fp8"), "hifloat8": (1, "fp8"),
    "long int": (8, "int64"), "long": (8, "int64"), "int64": (8, "int64"), "dt_int64": (8, "int64"),
    "int": (4, "int32"), "int32": (4, "int32"), "dt_int32": (4, "int32"),
    "short int": (2, "int16"), "short": (2, "int16"), "int16": (2, "int16"),
    "signed char": (1, "int8"), "int8": (1, "int8"), "dt_int8": (1, "int8"),
    "unsigned char": (1, "uint8"), "uint8": (1, "uint8"), "dt_uint8": (1, "uint8"),
    "bool": (1, "bool"), "dt_bool": (1, "bool"),
    "complex<float>": (8, "c64"), "complex64": (8, "c64"), "complex<double>": (16, "c128"),
    "complex128": (16, "c128"), "complex<c10::half>": (4, "c32"),
}
_PREFIX = re.compile(r"^(c10::|torch\.|at::)", re.I)


def dtype_info(name) -> tuple[int, str] | None:
    """(bytes per element, dtype class) of a recorded dtype name; None for scalars and unknowns."""
    if not isinstance(name, str):
        return None
    key = _PREFIX.sub("", name.strip().strip("'\"")).lower()
    return _DTYPES.get(key)


def _split(text: str) -> list:
    """A recorded list: JSON when it looks like JSON, else Ascend's ``a;b;c``."""
    text = text.strip()
    if text.startswith("["):
        try:
            v = orjson.loads(text)
            return v if isinstance(v, list) else [v]
        except orjson.JSONDecodeError:
            return []
    return text.split(";")


def _dims(item) -> list[int] | None:
    if isinstance(item, list):
        return [int(x) for x in item] if all(isinstance(x, (int, float)) for x in item) else None
    if isinstance(item, str):
        item = item.strip().strip('"')
        if item == "":
            return None
        try:
            return [int(x) for x in item.split(",")]
        except ValueError:
            return None
    return None


class Tensor(tuple):
    """(dims, element size, dtype class) of one input; ``numel`` and ``nbytes`` follow."""

    __slots__ = ()

    def __new__(cls, dims, size, dtype):
        return super().__new__(cls, (tuple(dims), size, dtype))

    dims = property(lambda s: s[0])
    size = property(lambda s: s[1])
    dtype = property(lambda s: s[2])
    numel = property(lambda s: math.prod(s[0]))
    nbytes = property(lambda s: math.prod(s[0]) * s[1])


def parse_inputs(shapes, dtypes) -> list:
    """Per recorded input: a Tensor, or None for a non-tensor input (scalar, list, missing)."""
    if not isinstance(shapes, str) or not isinstance(dtypes, str):
        return []
    sh, dt = _split(shapes), _split(dtypes)
    out = []
    for i, d in enumerate(dt):
        info = dtype_info(d)
        dims = _dims(sh[i]) if i < len(sh) else None
        out.append(Tensor(dims, *info) if info is not None and dims is not None else None)
    return out
