"""The bokeh charts say what they show without hiding it (issue 15, item 10): the breakdown's legend sits
outside the bars, peaks are named in the legend (labels on the plot overlapped), and process-level memory
(RSS, hundreds of MiB) has its own axis beside a few MiB of allocations."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cann_nb.model import Profile
from cann_nb.widgets.charts import breakdown_figure, memory_figure
from tests.widgets.synth import synthetic_profile


def test_the_breakdown_legend_is_outside_the_plot():
    fig = breakdown_figure(synthetic_profile(2_000))
    legends = [r for r in fig.center if type(r).__name__ == "Legend"]
    assert not legends                                             # nothing drawn over the bars
    assert [type(r).__name__ for r in fig.above] == ["Legend"]


def _cpu_allocations_and_rss() -> Profile:
    ts = np.arange(0, 100_000_000, 1_000_000, dtype=np.int64)
    alloc = 2 * 2**20 + (np.arange(len(ts)) % 7) * 2**19             # a few MiB, up and down
    memory = pd.DataFrame({"ts_ns": ts, "device": "cpu", "delta_bytes": np.nan, "allocated_bytes": alloc.astype(float),
                           "reserved_bytes": np.nan, "event_id": -1})
    counters = pd.DataFrame({"ts_ns": ts, "source": "host", "metric": "rss",
                             "value": 600 * 2**20 + np.arange(len(ts)) * 2**20.0})
    return Profile(memory=memory, counters=counters, meta={"name": "m"})


def test_memory_peaks_are_in_the_legend_and_rss_has_its_own_axis():
    fig = memory_figure(_cpu_allocations_and_rss())
    assert not [r for r in fig.center if type(r).__name__ == "Label"]      # no labels to overlap
    labels = [item.label.value for item in fig.legend[0].items]
    assert labels == ["cpu allocated (peak 5.0 MiB)", "host rss (peak 699.0 MiB, right axis)"]
    rss = [r for r in fig.renderers if getattr(r, "y_range_name", "default") == "process"]
    assert rss and "process" in fig.extra_y_ranges
    assert [type(a).__name__ for a in fig.right] == ["LinearAxis"]
    # the allocations' axis fits the allocations alone, so they do not look flat
    assert all(r.y_range_name == "default" for r in fig.y_range.renderers)


def test_memory_without_allocator_data_keeps_one_axis():
    p = _cpu_allocations_and_rss()
    fig = memory_figure(Profile(counters=p.counters, meta={"name": "rss only"}))
    assert not fig.extra_y_ranges and not fig.right
