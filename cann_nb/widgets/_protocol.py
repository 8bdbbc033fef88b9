"""The wire format between the widget models and js/ (reviewable in one place; js/data.js reads it).

Synced traits carry these dicts; ``bytes`` values travel as binary buffers (ipywidgets' buffer
extraction), never as JSON numbers. Custom messages are the two at the bottom.
"""

from __future__ import annotations

from typing import Literal, TypedDict


class Column(TypedDict):
    """One typed array: little-endian ``dtype`` (f8 f4 u1 u2 u4 i4), ``n`` items, zlib-compressed ``z``."""

    dtype: Literal["f8", "f4", "u1", "u2", "u4", "i4"]
    n: int
    z: bytes


class Lane(TypedDict):
    name: str      # the track: host/thread 1234, cuda:0/stream 7
    group: str     # host, cuda:0, npu:0 ... (lanes are grouped by it)
    kind: Literal["events"]


class Rows(TypedDict):
    """One timeline row per (lane, depth): events ``lo:hi`` (shipped order), start-sorted."""

    lane: list[int]
    depth: list[int]
    lo: list[int]
    hi: list[int]


class CounterSeries(TypedDict):
    group: str
    label: str
    unit: Literal["bytes", "%", ""]
    n_raw: int
    t_min: int
    t_max: int
    min: float
    max: float
    peak: tuple[int, float]
    ts: Column     # f8 ns
    val: Column    # f4


class Timeline(TypedDict):
    """The ``timeline`` trait. ``cols``: start f8, dur f4, name u2|u4, cat u1, parent i4 (row index,
    -1 none), optional shapes/module u2|u4 (code+1, 0 none); ``dicts`` holds their strings."""

    version: int
    n: int
    n_total: int
    hidden: int
    hidden_below_ns: int
    extent: list[int]
    lanes: list[Lane]
    rows: Rows
    cols: dict[str, Column]
    dicts: dict[str, list[str]]
    flows: dict[Literal["src", "dst"], Column]  # launch row -> device task row
    counters: list[CounterSeries]
    flat_counters: int          # series left out: constant over the whole profile (their value is in the tables)


class Evidence(TypedDict):
    """The ``evidence`` trait: finding k's event rows are ``rows[offsets[k]:offsets[k+1]]``."""

    offsets: Column
    rows: Column


class HighlightRows(TypedDict):
    """The ``highlight_rows`` trait set by ``view.highlight(ids)``; ``seq`` makes repeats a change."""

    rows: Column
    seq: int


# -- custom messages ------------------------------------------------------------------------------
class BokehJSRequest(TypedDict):
    """front end -> kernel: the page has no BokehJS of the kernel's version."""

    type: Literal["bokehjs?"]


class BokehJSReply(TypedDict):
    """kernel -> front end, with one buffer: the inline BokehJS source (UTF-8)."""

    type: Literal["bokehjs"]
    version: str


class ChartsRequest(TypedDict):
    """front end -> kernel: a lazy view (``charts_lazy``) needs these charts now (its tab opened).
    The kernel answers by adding them to the ``charts`` trait (so a saved widget state keeps them)."""

    type: Literal["charts?"]
    which: list[str]
