"""FLOPs and bytes moved by one op, from its recorded inputs (and Concrete Inputs where needed).

Conventions (docs/efficiency.md has the reasoning and the limits):

- FLOPs: a multiply-add is 2 FLOPs (torch's ``computeFlops``); biases and the softmax inside attention
  are not counted; pointwise ops cost ``EW_FLOPS`` per output element (1 unless listed), reductions
  one per input element, norms and softmax the per-element counts below.
- Bytes: the minimum traffic to and from memory: every tensor input read once, the output written once.
  Outputs are not recorded, so their shape comes from the formula (matmul M x N, pointwise the
  broadcast of the inputs); reduction outputs are taken as negligible.
- An op with no formula here, or whose inputs are not recorded, is NaN (``unknown``): never guessed.

``cost(name, inputs, concrete)`` returns ``(flops, bytes, family, dtype)``; ``family`` groups ops for
the nesting rules in cost.py. Matmul and convolution FLOPs were collect/torch_flops.py's (which now
calls ``matmul_flops`` / ``conv_flops`` from here).
"""

from __future__ import annotations

import math
import re

import numpy as np
import orjson

from .tensors import Tensor

NAN = math.nan
MATMUL = ("mm", "addmm", "bmm", "baddbmm", "addbmm", "matmul", "linear", "mv", "addmv", "dot", "vdot")
CONV = ("conv1d", "conv2d", "conv3d", "convolution", "_convolution")
# the attention ops that take (B, H, L, E) query, key, value first
ATTENTION = ("scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
             "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
             "_scaled_dot_product_attention_math", "_scaled_dot_product_flash_attention_for_cpu",
             "_scaled_dot_product_fused_attention_overrideable")
EW_FLOPS = {  # FLOPs per output element of pointwise ops (1 when not listed)
    "addcmul": 2, "addcdiv": 2, "lerp": 2, "gelu": 1, "silu": 1, "hardswish": 1,
}
ELEMENTWISE = {
    "add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide", "neg", "abs", "relu", "relu6", "gelu",
    "silu", "sigmoid", "tanh", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "pow",
    "square", "reciprocal", "sign", "floor", "ceil", "round", "trunc", "frac", "clamp", "clamp_min",
    "clamp_max", "clip", "where", "maximum", "minimum", "fmax", "fmin", "eq", "ne", "lt", "gt", "le", "ge",
    "fill", "masked_fill", "addcmul", "addcdiv", "lerp", "hardtanh", "leaky_relu", "elu", "selu", "celu",
    "mish", "softplus", "hardsigmoid", "hardswish", "erf", "erfc", "erfinv", "sin", "cos", "tan", "asin",
    "acos", "atan", "atan2", "sinh", "cosh", "fmod", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "logical_and", "logical_or", "logical_xor", "logical_not", "threshold",
    "threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
    "hardtanh_backward", "nan_to_num", "zero",
}
COMPARE = {"eq", "ne", "lt", "gt", "le", "ge", "logical_and", "logical_or", "logical_xor", "logical_not"}
REDUCTIONS = {"sum": 1, "mean": 1, "prod": 1, "amax": 1, "amin": 1, "max": 1, "min": 1, "argmax": 1,
              "argmin": 1, "all": 1, "any": 1, "var": 3, "std": 3, "var_mean": 3, "std_mean": 3,
              "linalg_vector_norm": 2, "norm": 2, "logsumexp": 3, "cumsum": 1, "cumprod": 1}
SCANS = {"cumsum", "cumprod"}  # reductions whose output is as large as the input
# norms: mean (1), variance (2), normalise (2) per element; the affine transform adds 2
NORMS = ("layer_norm", "native_layer_norm", "group_norm", "native_group_norm", "batch_norm",
         "native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
         "cudnn_batch_norm", "miopen_batch_norm", "instance_norm", "rms_norm", "_fused_rms_norm")
NORM_FLOPS, AFFINE_FLOPS = 5, 2
SOFTMAX = ("softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax")
SOFTMAX_FLOPS = 5      # max, subtract, exp, sum, divide
EMBEDDING = ("embedding", "index_select")
COPIES = ("copy_", "cat", "concat", "concatenate", "stack")
# ops that move no data (metadata only, or allocation without initialisation): 0 FLOPs, 0 bytes
NO_DATA = {"view", "reshape", "_unsafe_view", "as_strided", "t", "transpose", "permute", "expand",
           "expand_as", "slice", "select", "squeeze", "unsqueeze", "detach", "alias", "narrow", "split",
           "split_with_sizes", "chunk", "unbind", "flatten", "unflatten", "view_as", "lift_fresh", "empty",
           "empty_like", "empty_strided", "new_empty", "new_empty_strided", "resize_", "set_", "numpy_T",
           "_reshape_alias", "movedim", "swapaxes", "contiguous", "to", "type_as", "result_type"}
# a recurrent layer's kernel over a whole sequence (one layer, one direction): inputs x [T, B, D], w_ih [G*H, D],
# w_hh [G*H, H], ... (G gates: 4 for an LSTM, 3 for a GRU); its steps' matmuls and gate arithmetic inside
RECURRENT = ("mkldnn_rnn_layer",)
_FAMILY_OF = {**{n: "recurrent" for n in RECURRENT}, **{n: "matmul" for n in MATMUL}, **{n: "conv" for n in CONV},
              **{n: "matmul" for n in ATTENTION},
              **{n: "norm" for n in NORMS}, **{n: "softmax" for n in SOFTMAX}, **{n: "embedding" for n in EMBEDDING},
              **{n: "copy" for n in COPIES}, **{n: "reduction" for n in REDUCTIONS},
              **{n: "elementwise" for n in ELEMENTWISE}, **{n: "no_data" for n in NO_DATA}}
# ops below a costed op of their family that may carry its cost (backend kernels without a formula)
FAMILY_NAME_RE = {"conv": re.compile(r"conv", re.I), "matmul": re.compile(r"attention|flash|gemm|matmul", re.I),
                  "norm": re.compile(r"norm", re.I), "softmax": re.compile(r"softmax", re.I)}


def base_name(name: str) -> str:
    """``aten::add_`` -> ``add``: the framework prefix and the in-place suffix go."""
    n = name.rsplit("::", 1)[-1]
    if n.endswith("_") and not n.endswith("__") and n not in COPIES:
        n = n[:-1]
    return n


def family(name: str) -> str | None:
    n = name.rsplit("::", 1)[-1]
    return _FAMILY_OF.get(n) or _FAMILY_OF.get(base_name(name))


def cost(name: str, inputs: list, concrete: str = "") -> tuple[float, float, str | None, str | None]:
    """(flops, bytes, family, dtype class) of one op; NaN where there is no formula or data."""
    raw = name.rsplit("::", 1)[-1]
    n = base_name(name)
    fam = family(name)
    tensors = [t for t in inputs if t is not None]
    dtype = tensors[0].dtype if tensors else None
    if fam is None:
        return NAN, NAN, None, dtype
    if fam == "no_data":
        return 0.0, 0.0, fam, dtype
    try:
        if fam == "matmul":
            return (*_matmul_cost(raw, inputs), fam, dtype)
        if fam == "conv":
            return (*_conv_cost(raw, inputs, concrete), fam, dtype)
        if fam == "copy":
            return (*_copy_cost(raw, tensors), fam, dtype)
        if fam == "embedding":
            return (*_embedding_cost(raw, inputs, concrete), fam, dtype)
        if fam == "recurrent":
            return (*_recurrent_cost(inputs), fam, dtype)
        if not tensors:
            return NAN, NAN, fam, dtype
        if fam == "elementwise":
            return (*_elementwise_cost(n, tensors), fam, dtype)
        if fam == "reduction":
            x = tensors[0]
            out = x.nbytes if n in SCANS else 0
            return float(REDUCTIONS[n] * x.numel), float(sum(t.nbytes for t in tensors) + out), fam, dtype
        if fam == "norm":
            x = tensors[0]
            affine = len(tensors) > 1
            flops = (NORM_FLOPS + (AFFINE_FLOPS if affine else 0)) * x.numel
            return float(flops), float(sum(t.nbytes for t in tensors) + x.nbytes), fam, dtype
        if fam == "softmax":
            x = tensors[0]
            # the backward (_softmax_backward_data) reads grad and output: inputs cover it
            return float(SOFTMAX_FLOPS * x.numel), float(sum(t.nbytes for t in tensors) + x.nbytes), fam, dtype
    except (TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError):
        pass
    return NAN, NAN, fam, dtype


# -- matmul -------------------------------------------------------------------------------------------
def matmul_flops(name: str, d: list) -> float:
    """FLOPs (2 x multiply-adds) of a matmul-family op from its input dims (list per input)."""
    if name == "mm":
        (m, k), (_, n) = d[0], d[1]
        return 2.0 * m * k * n
    if name == "addmm":
        (m, k), (_, n) = d[1], d[2]
        return 2.0 * m * k * n
    if name == "bmm":
        (b, m, k), (_, _, n) = d[0], d[1]
        return 2.0 * b * m * k * n
    if name in ("baddbmm", "addbmm"):
        (b, m, k), (_, _, n) = d[1], d[2]
        return 2.0 * b * m * k * n
    if name == "linear":
        x, w = d[0], d[1]
        return 2.0 * math.prod(x[:-1]) * x[-1] * w[0]
    if name == "mv":
        (m, k) = d[0]
        return 2.0 * m * k
    if name == "addmv":
        (m, k) = d[1]
        return 2.0 * m * k
    if name in ("dot", "vdot"):
        return 2.0 * d[0][0]
    if name in ATTENTION:
        (b, h, lq, e), (_, _, s, _), v = d[0], d[1], d[2]
        return 2.0 * b * h * lq * s * (e + v[-1])
    # matmul: numpy broadcasting rules, 1-D operands promoted then squeezed
    a, b = list(d[0]), list(d[1])
    if not a or not b:
        return NAN
    a = [1] + a if len(a) == 1 else a
    b = b + [1] if len(b) == 1 else b
    batch = np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    return 2.0 * math.prod(batch) * a[-2] * a[-1] * b[-1]


def _matmul_out(name: str, d: list) -> int:
    """Elements of the output."""
    if name in ("mm",):
        return d[0][0] * d[1][1]
    if name == "addmm":
        return d[1][0] * d[2][1]
    if name == "bmm":
        return d[0][0] * d[0][1] * d[1][2]
    if name == "baddbmm":
        return d[1][0] * d[1][1] * d[2][2]
    if name == "addbmm":
        return d[1][1] * d[2][2]
    if name == "linear":
        return math.prod(d[0][:-1]) * d[1][0]
    if name in ("mv", "addmv"):
        return (d[0] if name == "mv" else d[1])[0]
    if name in ("dot", "vdot"):
        return 1
    if name in ATTENTION:
        (b, h, lq, _), v = d[0], d[2]
        return b * h * lq * v[-1]
    a, b = list(d[0]), list(d[1])
    a2 = [1] + a if len(a) == 1 else a
    b2 = b + [1] if len(b) == 1 else b
    batch = np.broadcast_shapes(tuple(a2[:-2]), tuple(b2[:-2]))
    return math.prod(batch) * (a2[-2] if len(a) > 1 else 1) * (b2[-1] if len(b) > 1 else 1)


def _matmul_cost(name: str, inputs: list) -> tuple[float, float]:
    d = [list(t.dims) if t is not None else None for t in inputs]
    flops = matmul_flops(name, d)
    out = _matmul_out(name, d)
    # operands and bias are the first three inputs (attention: q, k, v); scalars (alpha, beta) are not tensors
    read = sum(t.nbytes for t in inputs[:3] if t is not None)
    a = inputs[1] if name in ("addmm", "baddbmm", "addbmm", "addmv") else inputs[0]
    return float(flops), float(read + out * a.size)


# -- convolution ----------------------------------------------------------------------------------------
def conv_flops(name: str, d: list, args: list) -> tuple[float, list | None]:
    """(FLOPs, output spatial dims) of a dispatcher-level convolution; needs Concrete Inputs for
    stride/padding/dilation (NaN without them, and for transposed convolutions)."""
    x, w = d[0], d[1]
    spatial = len(x) - 2
    if spatial < 1 or len(w) != len(x):
        return NAN, None
    # convNd(input, weight, bias, stride, padding, dilation, groups);
    # convolution/_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if len(args) < 6:
        return NAN, None
    stride, padding, dilation = args[3:6]
    if name in ("conv1d", "conv2d", "conv3d"):
        groups = args[6] if len(args) > 6 else None
    else:
        if len(args) > 6 and _scalar(args[6]) in (1, "True", "true"):
            return NAN, None
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
            return NAN, None
        out = [(i + 2 * p - dl * (k - 1) - 1) // s + 1 for i, k, s, p, dl in zip(x[2:], kernel, stride, pad, dilation)]
    if min(out) <= 0:
        return NAN, None
    return 2.0 * x[0] * w[0] * (x[1] // g) * math.prod(kernel) * math.prod(out), out


def _conv_cost(name: str, inputs: list, concrete: str) -> tuple[float, float]:
    args = orjson.loads(concrete) if concrete else []
    d = [list(t.dims) if t is not None else None for t in inputs]
    flops, out = conv_flops(name, d, args if isinstance(args, list) else [])
    if out is None:
        return NAN, NAN
    x, w = inputs[0], inputs[1]
    written = x.dims[0] * w.dims[0] * math.prod(out) * x.size
    read = sum(t.nbytes for t in inputs[:3] if t is not None)
    return flops, float(read + written)


def _recurrent_cost(inputs: list) -> tuple[float, float]:
    """Per step: the input and hidden projections (2 FLOPs per multiply-add) and one FLOP per gate value
    (its nonlinearity and the state update); bytes: the inputs read once and the output sequence written."""
    x, w_ih, w_hh = inputs[0], inputs[1], inputs[2]
    gates, d = w_ih.dims
    h = w_hh.dims[1]
    steps_rows = x.numel // d   # T x B
    flops = 2.0 * steps_rows * gates * (d + h) + steps_rows * gates
    return flops, float(sum(t.nbytes for t in inputs if t is not None) + steps_rows * h * x.size)


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


# -- the rest -------------------------------------------------------------------------------------------
def _elementwise_cost(n: str, tensors: list) -> tuple[float, float]:
    shape = np.broadcast_shapes(*(t.dims for t in tensors))
    numel = math.prod(shape)
    out_size = 1 if n in COMPARE else tensors[0].size
    return float(EW_FLOPS.get(n, 1) * numel), float(sum(t.nbytes for t in tensors) + numel * out_size)


def _copy_cost(name: str, tensors: list) -> tuple[float, float]:
    if name == "copy_":          # copy_(dst, src): read src, write dst
        dst, src = tensors[0], tensors[1]
        return 0.0, float(src.nbytes + dst.nbytes)
    moved = sum(t.nbytes for t in tensors)   # cat/stack: read every input, write as much
    return 0.0, float(2 * moved)


def _embedding_cost(name: str, inputs: list, concrete: str) -> tuple[float, float]:
    if name == "embedding":      # embedding(weight (V, D), indices)
        w, idx = inputs[0], inputs[1]
    else:                        # index_select(self, dim, index): rows of dim 0 only
        args = orjson.loads(concrete) if concrete else []
        if not isinstance(args, list) or len(args) < 2 or _scalar(args[1]) != 0:
            return NAN, NAN
        w, idx = inputs[0], inputs[2]
    rows = idx.numel * math.prod(w.dims[1:]) * w.size
    return 0.0, float(idx.nbytes + 2 * rows)   # indices read, rows read, rows written
