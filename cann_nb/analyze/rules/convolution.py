"""The long-kernel convolution rule: a convolution computed directly where the FFT does a small share of
its FLOPs (a matched filter or a long FIR/IIR-like kernel of hundreds or thousands of taps, ``np.convolve``
of two long signals, ``F.conv1d`` with a kernel as long as a second of audio).

Reasoned from the work: direct convolution costs output points x kernel taps x channels; through the FFT
it costs the transforms (``~2.5 P log2 P`` FLOPs for a real FFT of P points) plus one complex
multiply-add per frequency and channel pair. Framework convolutions take their FLOPs and shapes from the
recorded inputs (analyze/efficiency); ``np.convolve``/``np.correlate`` lines from the Python tracer's
samples. An FFT runs well under a convolution kernel's share of the peak (its butterflies are
memory-bound), so its FLOPs are weighed ``fft_penalty`` times. Gain: the convolution's time scaled by the
FFT's weighed FLOPs over the direct FLOPs, replayed.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from ..efficiency.cost import FAMILIES, event_costs
from ..efficiency.tensors import parse_inputs
from ..line_arrays import line_arrays
from ..timeline import outermost
from .arrays import finding_from_lines, where
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain

_CONV = FAMILIES.index("conv")
CONV_NAME_RE = re.compile(r"conv", re.I)
SUGGESTION = ("Convolve through the FFT when the kernel is long (hundreds of taps or more): "
              "scipy.signal.fftconvolve / oaconvolve (numpy), torch.fft.rfft of signal and kernel, multiply, "
              "torch.fft.irfft (correlation: multiply by the conjugate), or torchaudio.functional.fftconvolve; "
              "the cost falls from points x taps to points x log(points).")


def fft_flops(batch: int, c_in: int, c_out: int, groups: int, points: list, taps: list) -> float:
    """FLOPs of a convolution through real FFTs of the full linear size per spatial dim (points + taps - 1):
    the inputs', the kernels' and the outputs' transforms, and one complex multiply-add (8 FLOPs) per
    frequency, batch item, output channel and input channel of its group."""
    size = math.prod(p + k - 1 for p, k in zip(points, taps))
    transform = 2.5 * size * math.log2(max(size, 2))
    return transform * (batch * c_in + c_out * (c_in // groups) + batch * c_out) \
        + 8.0 * batch * c_out * (c_in // groups) * (size / 2 + 1)


def _torch_groups(ctx) -> list[dict]:
    """The outermost convolution ops with a direct-FLOPs figure, grouped by name and recorded inputs."""
    c = event_costs(ctx)
    rows = np.flatnonzero(c["costed"] & (c["family"] == _CONV) & np.isfinite(c["flops"]) & ~ctx.is_device_task)
    if not len(rows) or "shapes" not in ctx.events:
        return []
    rows = outermost(ctx, rows)
    shown = _user_op(ctx, rows)
    ev = ctx.events
    keys = ev["name"].astype(str).to_numpy()[rows] + "|" + ev["shapes"].astype(str).to_numpy()[rows] + "|" + \
        ev["dtypes"].astype(str).to_numpy()[rows]
    out = []
    for key in np.unique(keys):
        sel = rows[keys == key]
        top = shown[keys == key]
        name, shapes, dtypes = key.split("|", 2)
        ins = parse_inputs(shapes, dtypes)
        if len(ins) < 2 or ins[0] is None or ins[1] is None or len(ins[0].dims) != len(ins[1].dims) \
                or len(ins[0].dims) < 3:
            continue
        x, w = ins[0].dims, ins[1].dims
        groups = max(1, x[1] // max(w[1], 1))
        out.append({"rows": top, "name": str(ctx.names(top[:1])[0]), "kernel_op": name, "x": list(x), "w": list(w),
                    "flops": float(c["flops"][sel[0]]),
                    "fft": fft_flops(x[0], x[1], w[0], groups, list(x[2:]), list(w[2:]))})
    return out


def _user_op(ctx, rows) -> np.ndarray:
    """Per row: its outermost ancestor that is still a convolution (aten::conv1d around the
    mkldnn_convolution that carries the FLOPs): the op the user called, whose time holds the whole call."""
    out = rows.copy()
    conv = ctx.flag(CONV_NAME_RE)
    cur = ctx.rows_of_parent[rows]
    for _ in range(16):
        live = (cur >= 0) & conv[np.maximum(cur, 0)]
        if not live.any():
            break
        out[live] = cur[live]
        cur = np.where(live, ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    return out


def _spatial(dims: list) -> str:
    """Spatial sizes for a title, without the unit dims a conv1d gains on its way to a 2-D kernel."""
    kept = [str(d) for d in dims if d != 1] or ["1"]
    return " x ".join(kept)


def long_kernel_conv(ctx, th):
    """Convolutions (framework ops, np.convolve/np.correlate lines) whose direct FLOPs are ``min_ratio``
    times or more the FFT's weighed FLOPs. Gain: their time scaled by (fft x fft_penalty) / direct."""
    yield from _framework(ctx, th)
    yield from _numpy_lines(ctx, th)


def _framework(ctx, th):
    flagged = []
    for g in _torch_groups(ctx):
        ratio = g["flops"] / max(th["fft_penalty"] * g["fft"], 1.0)
        if ratio >= th["min_ratio"]:
            flagged.append((g, ratio))
    if not flagged:
        return
    rows = np.concatenate([g["rows"] for g, _ in flagged])
    shown = covered_ns(ctx, rows)
    if pct(shown, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    for g, ratio in flagged:
        factor[g["rows"]] = 1.0 / ratio
    gain, conf = _factor_gain(ctx, rows, factor)
    g, ratio = max(flagged, key=lambda x: float(ctx.dur[x[0]["rows"]].sum()))
    taps, points = _spatial(g["w"][2:]), _spatial(g["x"][2:])
    yield make_finding(
        ctx, "long_kernel_conv", "hotspot",
        f"{g['name']} with a {taps}-tap kernel over {points} points, computed directly: {g['flops']:.3g} FLOPs per "
        f"call where the FFT needs {g['fft']:.3g} ({F.ns(shown)}, {pct(shown, ctx.wall):.0f}% of end-to-end)",
        evidence={"convolutions": [{"op": x["name"], "kernel_op": x["kernel_op"], "input": x["x"], "weight": x["w"], "calls": int(len(x["rows"])),
                                    "direct_flops": x["flops"], "fft_flops": x["fft"], "ratio": r}
                                   for x, r in flagged[:10]],
                  "fft_penalty": th["fft_penalty"], "time_ns": float(ctx.dur[rows].sum())},
        ops=sorted({x["name"] for x, _ in flagged}), suggestion=SUGGESTION, gain_ns=gain,
        method=METHOD_CP + " (each convolution's time scaled by fft_penalty x FFT FLOPs / direct FLOPs)",
        confidence=conf * 0.6, rows=rows, affected_ns=shown)


def _numpy_lines(ctx, th):
    la = line_arrays(ctx)
    if la.empty or "contractions" not in la:
        return
    flagged = []
    for rec in la.to_dict("records"):
        convs = [c for c in rec.get("contractions") or [] if c.get("kind") == "convolve"]
        ops = {o["name"]: o for o in rec["operands"] if o.get("kind") == "ndarray" and len(o.get("shape", ())) == 1}
        direct = fft = 0.0
        for c in convs:
            a, v = (ops.get(n) for n in c["operands"])
            if a is None or v is None:
                continue
            n, m = a["shape"][0], v["shape"][0]
            direct += 2.0 * n * m   # full mode; 'same' and 'valid' keep most of it for a long signal
            fft += fft_flops(1, 1, 1, 1, [max(n, m)], [min(n, m)])
        if direct and len(rec["rows"]) and direct >= th["min_ratio"] * th["fft_penalty"] * fft:
            flagged.append((rec, 1.0 - th["fft_penalty"] * fft / direct,
                            f"{direct:.3g} FLOPs per run where the FFT needs {fft:.3g}"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} convolves long signals directly (np.convolve/np.correlate): "
                f"{first[2]} ({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)")

    yield from finding_from_lines(ctx, th, "long_kernel_conv", "hotspot", flagged, title, SUGGESTION,
                                  " (each line's time scaled by fft_penalty x FFT FLOPs / direct FLOPs)",
                                  {"fft_penalty": th["fft_penalty"]})
