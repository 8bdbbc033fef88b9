"""Bokeh charts of a profile: time breakdown per device, memory over time (peak marked), utilisation.

Each function returns a bokeh model, usable on its own (``bokeh.io.show`` with INLINE resources, or
``bokeh.embed.file_html(fig, INLINE)``); the widgets embed them through ``json_item`` and load BokehJS
from the kernel (never from a CDN). Points are decimated (min/max per bucket) so a chart stays light.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._encode import _decimate
from ..analyze.api import overview
from ..analyze.breakdown import busy_over_time
from ._tables import str_values

MAX_POINTS = 4000
HEIGHT = 240
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac")


def _figure(title: str, **kw):
    from bokeh.plotting import figure

    fig = figure(title=title, height=HEIGHT, sizing_mode="stretch_width", tools="xpan,xwheel_zoom,box_zoom,reset,save",
                 active_scroll=None, toolbar_location="right", **kw)
    fig.title.text_font_size = "12px"
    return fig


def time_origin(profile) -> int:
    """The instant the timeline calls 0: the earliest event, memory record or counter sample."""
    firsts = [int(t["start_ns" if name == "events" else "ts_ns"].min())
              for name, t in (("events", profile.events), ("memory", profile.memory), ("counters", profile.counters))
              if len(t)]
    return min(firsts) if firsts else 0


def _ms(ts_ns, origin: int = 0) -> np.ndarray:
    return (np.asarray(ts_ns, dtype=np.int64) - origin).astype(np.float64) / 1e6


def breakdown_figure(profile, devices: dict | None = None):
    """Stacked horizontal bars per device: compute, communication, memcpy and idle time (ms), as
    ``analyze.api.overview`` computed them (busy = compute + communication + memcpy)."""
    from bokeh.models import ColumnDataSource, HoverTool

    bd = devices if devices is not None else overview(profile)["devices"]
    devices = list(bd) or ["(no events)"]
    keys = ("compute", "communication", "memcpy", "idle")
    rows = {k: [bd.get(dev, {}).get(f"{k}_ns", 0) / 1e6 for dev in devices] for k in keys}
    src = ColumnDataSource({"device": devices, **rows})
    fig = _figure("Time breakdown per device (ms)", y_range=devices[::-1])
    fig.height = max(120, 60 + 34 * len(devices))
    colors = ("#4e79a7", "#e15759", "#f28e2b", "#d9d9d9")
    fig.hbar_stack(list(keys), y="device", height=0.7, color=list(colors), source=src,
                   legend_label=list(keys))
    fig.add_tools(HoverTool(tooltips=[("device", "@device"), ("compute", "@compute{0.000} ms"),
                                      ("communication", "@communication{0.000} ms"), ("memcpy", "@memcpy{0.000} ms"),
                                      ("idle", "@idle{0.000} ms")]))
    fig.legend.orientation = "horizontal"
    fig.legend.label_text_font_size = "10px"
    fig.add_layout(fig.legend[0], "above")   # outside the plot: inside, it covered the start of the bars
    fig.height += 24
    fig.xaxis.axis_label = "ms"
    return fig


def memory_figure(profile):
    """Allocated (solid) and reserved (dashed) bytes per device over time, host RSS, each peak marked
    (a triangle, its value in the legend: labels on the plot overlapped). Process-level samples (RSS,
    device memory used) take their own axis on the right when allocator series are drawn too: hundreds
    of MiB of RSS flattened a few MiB of CPU allocations."""
    from bokeh.models import ColumnDataSource, DataRange1d, HoverTool, LinearAxis

    fig = _figure("Memory over time (MiB)")
    fig.xaxis.axis_label = "ms"
    origin = time_origin(profile)
    mem, ctr = profile.memory, profile.counters
    i = 0
    drew = False
    series = []
    if len(mem):
        for dev, m in mem.groupby("device", observed=True, sort=True):
            for col, dash in (("allocated_bytes", "solid"), ("reserved_bytes", "dashed")):
                if m[col].notna().any():
                    series.append((f"{dev} {col.split('_')[0]}", m["ts_ns"], m[col], dash))
    allocators = len(series)
    if len(ctr):
        rss = ctr[np.isin(str_values(ctr["metric"]), ("rss", "gpu_mem_used"))]
        for (src_, metric), m in rss.groupby(["source", "metric"], observed=True, sort=True):
            series.append((f"{src_} {metric}", m["ts_ns"], m["value"], "dotted"))
    own_axis = 0 < allocators < len(series)      # both kinds: the process samples on the right axis
    drawn = {"default": [], "process": []}
    for k, (label, ts, val, dash) in enumerate(series):
        ts = ts.to_numpy(dtype=np.int64)
        val = val.to_numpy(dtype=np.float64)
        ok = ~np.isnan(val)
        ts, val = ts[ok], val[ok]
        if not len(ts):
            continue
        order = np.argsort(ts, kind="stable")
        ts, val = ts[order], val[order]
        peak = int(np.argmax(val))
        pt, pv = ts[peak], val[peak]
        ts, val = _decimate(ts, val, MAX_POINTS)
        color = PALETTE[i % len(PALETTE)]
        i += 1
        axis = "process" if own_axis and k >= allocators else "default"
        src = ColumnDataSource({"t": _ms(ts, origin), "mib": val / 2**20})
        legend = f"{label} (peak {pv / 2**20:.1f} MiB" + (", right axis)" if axis == "process" else ")")
        line = fig.step("t", "mib", source=src, mode="after", color=color, line_dash=dash, legend_label=legend,
                        y_range_name=axis)
        peak_mark = fig.scatter([(pt - origin) / 1e6], [pv / 2**20], size=8, color=color, marker="triangle",
                                y_range_name=axis)
        drawn[axis] += [line, peak_mark]
        drew = True
    if own_axis:
        fig.y_range = DataRange1d(renderers=drawn["default"], range_padding=0.1)
        fig.extra_y_ranges = {"process": DataRange1d(renderers=drawn["process"], range_padding=0.1)}
        fig.add_layout(LinearAxis(y_range_name="process", axis_label="process MiB"), "right")
        fig.yaxis[0].axis_label = "allocated MiB"
    if drew:
        fig.add_tools(HoverTool(tooltips=[("t", "@t{0.000} ms"), ("MiB", "@mib{0.0}")]))
        fig.legend.location = "top_left"
        fig.legend.label_text_font_size = "10px"
    else:
        fig.title.text = "Memory over time: no memory events or RSS samples were recorded"
        fig.scatter([], [])  # an empty renderer keeps bokeh's validation quiet
    return fig


def utilization_figure(profile):
    """Utilisation counters (CPU, GPU/NPU) over time in %; device busy share from the events when no
    utilisation counter was sampled for a device."""
    from bokeh.models import HoverTool

    fig = _figure("Utilisation over time (%)")
    fig.xaxis.axis_label = "ms"
    origin = time_origin(profile)
    ctr = profile.counters
    i = 0
    sampled_devices = set()
    if len(ctr):
        metric = pd.Series(str_values(ctr["metric"]))
        util = ctr[(metric.str.contains("util") & ~metric.str.startswith("cpu_util:core ")).to_numpy()]
        for (src_, metric), m in util.groupby(["source", "metric"], observed=True, sort=True):
            ts, val = _decimate(m["ts_ns"].to_numpy(dtype=np.int64), m["value"].to_numpy(dtype=np.float64), MAX_POINTS)
            # a utilisation sample covers the interval that ends at its timestamp
            fig.step(_ms(ts, origin), val, mode="before", color=PALETTE[i % len(PALETTE)], legend_label=f"{src_} {metric}")
            sampled_devices.add(str(src_))
            i += 1
    devices = sorted({str(d) for d in profile.events["device"].dropna().unique()} - {"cpu", "nan"} - sampled_devices)
    for dev in devices:
        r = busy_over_time(profile, dev)
        if r is None:
            continue
        fig.step(_ms(r["t_ns"], origin), r["busy_pct"], mode="center", color=PALETTE[i % len(PALETTE)], legend_label=f"{dev} busy (from events)")
        i += 1
    if i:
        fig.add_tools(HoverTool(tooltips=[("t", "$x{0.000} ms"), ("%", "$y{0.0}")]))
        fig.legend.location = "top_left"
        fig.legend.label_text_font_size = "10px"
        fig.y_range.start = 0
    else:
        fig.title.text = "Utilisation over time: no utilisation samples or device tasks were recorded"
        fig.scatter([], [])
    return fig


BOUND_COLORS = {"compute": "#4e79a7", "memory": "#f28e2b", "latency": "#bab0ac", "unknown": "#d9d9d9"}
# a click on a point dispatches this DOM event (detail: root = the figure's id, name, cat, shapes); the
# front end that embedded the figure links it to its hotspot table and timeline (js/charts.js)
OP_EVENT = "cnb-op"


def roofline_figure(profile, top: int = 200):
    """Roofline per device, log-log: ops as points (x arithmetic intensity in FLOP/byte, y achieved FLOP/s,
    area ~ time, colour = bound class), the memory roof (bandwidth x intensity), the compute roof of the
    dominant dtype and the ridge where they meet; the numbers are ``analyze.efficiency.roofline_points``'."""
    from bokeh.models import ColumnDataSource, CustomJS, HoverTool, Span, TapTool

    from .. import formatting as F
    from ..analyze.efficiency import roofline_points

    pts = roofline_points(profile, top=top, by="name+shapes")
    fig = _figure("Roofline: achieved FLOP/s against arithmetic intensity", x_axis_type="log", y_axis_type="log")
    fig.height = 360
    fig.tools = [t for t in fig.tools if type(t).__name__ != "PanTool"]
    fig.xaxis.axis_label = "arithmetic intensity (FLOP/byte)"
    fig.yaxis.axis_label = "FLOP/s"
    if not pts:
        fig.title.text = "Roofline: no op has both FLOPs and bytes (record shapes; see docs/efficiency.md)"
        fig.scatter([], [])
        return fig
    renderers = []
    for i, (dev, d) in enumerate(pts.items()):
        g = d["points"]
        x, y = g["intensity"].to_numpy(float), g["flops_per_s"].to_numpy(float)
        share = g["time_ns"].to_numpy(float) / max(float(g["time_ns"].sum()), 1.0)
        src = ColumnDataSource({
            "x": x, "y": y, "size": 6 + 30 * np.sqrt(share),
            "name": g["name"].astype(str).to_numpy(), "cat": g["cat"].astype(str).to_numpy(),
            "shapes": g["shapes"].astype(str).to_numpy(), "device": np.full(len(g), dev),
            "color": [BOUND_COLORS.get(b, "#d9d9d9") for b in g["bound"]], "bound": g["bound"].astype(str).to_numpy(),
            "rate": [F.rate(v, "FLOP") for v in y], "intensity": [f"{v:.3g}" for v in x],
            "time": [F.ns(v) for v in g["time_ns"]],
        })
        renderers.append(fig.scatter("x", "y", size="size", color="color", alpha=0.7, line_color="#333333",
                                     source=src, legend_label=f"{dev}"))
        pf, pb, ridge = d["peak_flops_per_s"], d["peak_bytes_per_s"], d["ridge"]
        if np.isfinite(pb) and pb > 0:
            lo = min(float(np.nanmin(x)), ridge if np.isfinite(ridge) else np.inf) / 10
            hi = max(float(np.nanmax(x)), ridge if np.isfinite(ridge) else 0) * 10
            xs = np.geomspace(lo, hi, 64)
            ys = np.minimum(xs * pb, pf) if np.isfinite(pf) else xs * pb
            fig.line(xs, ys, color=PALETTE[i % len(PALETTE)], line_width=2,
                     legend_label=f"{dev} roof ({d['model']}, {d['dtype'] or '?'})")
        if np.isfinite(ridge):
            fig.add_layout(Span(location=ridge, dimension="height", line_dash="dotted", line_color=PALETTE[i % len(PALETTE)]))
    fig.add_tools(HoverTool(renderers=renderers, tooltips=[
        ("op", "@name"), ("shapes", "@shapes"), ("device", "@device"), ("FLOP/s", "@rate"),
        ("intensity", "@intensity FLOP/byte"), ("time", "@time"), ("bound", "@bound")]))
    tap = TapTool(renderers=renderers)
    fig.add_tools(tap)
    for r in renderers:
        r.data_source.selected.js_on_change("indices", CustomJS(args=dict(src=r.data_source, fig=fig), code=f"""
            const i = src.selected.indices[0];
            if (i === undefined) return;
            const d = src.data;
            document.dispatchEvent(new CustomEvent("{OP_EVENT}", {{detail: {{root: fig.id, name: d.name[i],
                cat: d.cat[i], shapes: d.shapes[i]}}}}));
        """))
    fig.legend.location = "bottom_right"
    fig.legend.label_text_font_size = "10px"
    return fig


def mfu_figure(profile):
    """MFU per step and device (``analyze.efficiency.step_mfu``), in %."""
    from bokeh.models import HoverTool

    from ..analyze.efficiency import step_mfu

    st = step_mfu(profile)
    fig = _figure("MFU per step (%)")
    fig.xaxis.axis_label = "step"
    st = st[np.isfinite(st["mfu"].to_numpy(float))] if len(st) else st
    if not len(st):
        fig.title.text = "MFU per step: no steps with FLOPs against a known peak"
        fig.scatter([], [])
        return fig
    for i, (dev, g) in enumerate(st.groupby("device", sort=True)):
        c = PALETTE[i % len(PALETTE)]
        fig.line(g["step"], 100 * g["mfu"], color=c, legend_label=str(dev))
        fig.scatter(g["step"], 100 * g["mfu"], color=c, size=5)
    fig.add_tools(HoverTool(tooltips=[("step", "$x{0}"), ("MFU %", "$y{0.00}")]))
    fig.y_range.start = 0
    fig.legend.location = "top_left"
    fig.legend.label_text_font_size = "10px"
    return fig


def chart_items(profile, devices: dict | None = None,
                which=("breakdown", "memory", "utilization", "roofline", "mfu")) -> dict:
    """{name: bokeh json_item} for the widgets (the same figures as the functions above)."""
    from bokeh.embed import json_item

    make = {"breakdown": lambda: breakdown_figure(profile, devices), "memory": lambda: memory_figure(profile),
            "utilization": lambda: utilization_figure(profile), "roofline": lambda: roofline_figure(profile),
            "mfu": lambda: mfu_figure(profile)}
    return {k: json_item(make[k]()) for k in which if k in make}
