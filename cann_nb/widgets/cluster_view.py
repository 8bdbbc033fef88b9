"""The cluster view: a ClusterResult (analyze/cluster) drawn as a rank x step heatmap and per-rank stacked
bars with the stragglers outlined (js/cluster.js). It encodes the analysis' numbers and computes none.

``selected_rank`` is the rank clicked in the view (-1 none); ``rank_profile()`` reads that rank for a
closer look (``cann_nb.load(...)`` of ``GROUP/rank=N`` shows its timeline).
"""

from __future__ import annotations

import numpy as np
import traitlets as t

from ._encode import column
from .static import cluster_html, cluster_text
from .views import _View

RANK_FIELDS = ("rank", "device", "wall_ns", "busy_ns", "compute_ns", "communication_ns", "memcpy_ns", "idle_ns",
               "comm_wait_ns", "step_p50_ns")


def cluster_payload(res) -> dict:
    """What js/cluster.js draws: the rank rows in rank order, the stragglers, and the rank x step cells
    as binary columns (a 1,000-rank job has 100k+ cells)."""
    from ..analyze.api import json_safe

    ranks = res.ranks.sort_values("rank", kind="stable")
    order = {int(r): i for i, r in enumerate(ranks["rank"])}
    st = res.steps
    index = st["rank"].map(order).to_numpy(np.int64) if len(st) else np.empty(0, np.int64)
    return {
        "name": str(res.group.get("name") or ""),
        "ranks": json_safe([{k: r.get(k) for k in RANK_FIELDS} for r in ranks.to_dict("records")]),
        "stragglers": res.straggler_ranks,
        "n_steps": int(st["step"].max()) + 1 if len(st) else 0,
        "steps": {"rank_index": column(index, "i4"), "step": column(st["step"].to_numpy(), "i4"),
                  "dur_ns": column(st["dur_ns"].to_numpy(np.float64), "f8"),
                  "comm_wait_ns": column(st["comm_wait_ns"].to_numpy(np.float64), "f8")},
    }


class ClusterView(_View):
    """A group's cross-rank analysis; the text/plain and escaped text/html summaries ride along."""

    _view = t.Unicode("cluster").tag(sync=True)
    cluster = t.Dict().tag(sync=True)
    selected_rank = t.Int(-1).tag(sync=True)

    def __init__(self, result, **kwargs):
        super().__init__(**kwargs)
        self.result = result
        self.cluster = cluster_payload(result)

    def rank_profile(self, rank: int | None = None):
        """The Profile of ``rank`` (default: the one clicked), read from the group's store."""
        from ..store import read_profile_dir

        rank = self.selected_rank if rank is None else rank
        path = self.result.group.get("path")
        if rank < 0 or not path:
            return None
        return read_profile_dir(f"{path}/rank={int(rank)}")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data = {**data, "text/plain": cluster_text(self.result), "text/html": cluster_html(self.result)}
        return (data, bundle[1]) if isinstance(bundle, tuple) else data
