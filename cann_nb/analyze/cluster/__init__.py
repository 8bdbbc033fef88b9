"""The cross-rank analysis of a multi-rank group (DESIGN.md, "Clusters (many ranks)").

    cluster_analysis(group, scheduler=None) -> ClusterResult    DataFrames, findings; .to_json() is ``cluster --json``

Map: each rank is summarised on its own (``rank.py``: ``analyze``'s figures for its busiest device, its
steps and collectives), here one at a time or on a Dask cluster (``engine.py``). Reduce: collectives are
matched, clocks aligned, skew and comm wait computed in DuckDB (``collectives.py``); stragglers are found
by a stated robust test and explained (``stragglers.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...model import render
from ..api import json_safe
from . import collectives as X
from .engine import summaries
from .stragglers import TEST, findings as straggler_findings, stragglers

RANK_KEYS = ("rank", "wall_ns", "busy_ns", "idle_ns", "compute_ns", "communication_ns", "memcpy_ns", "comm_wait_ns",
             "step_p50_ns")
STRAGGLER_KEYS = ("rank", "metric", "value", "median", "score", "reason")
COLLECTIVE_KEYS = ("name", "count", "skew_p50_ns", "skew_max_ns", "last_rank")
CLOCKS = ("aligned on the collectives: a rank's offset is the median of (its end of a collective - that "
          "collective's median end across ranks)")
MATCHING = ("the k-th call of a collective (its name; NCCL kernels without their argument list) on one rank meets "
            "the k-th call of it on the others; calls met on fewer than two ranks are left out")


@dataclass
class ClusterResult:
    """A group's cross-rank analysis as DataFrames: ``ranks`` (DESIGN.md's columns first, then the
    rank's device, kernels, data_loading_ns, active_ns, clock offset_ns, steps, events, worker),
    ``stragglers``, ``collectives``, ``steps`` (rank x step: dur_ns, comm_wait_ns, for the heatmap),
    ``findings``; ``group`` describes the group and how it was analysed."""

    group: dict
    ranks: pd.DataFrame
    stragglers: pd.DataFrame
    collectives: pd.DataFrame
    steps: pd.DataFrame
    findings: list = field(default_factory=list)

    def to_json(self) -> dict:
        """Exactly DESIGN.md's ``cluster --json`` object."""
        return json_safe({
            "group": self.group,
            "ranks": [{k: r[k] for k in RANK_KEYS} for r in self.ranks.to_dict("records")],
            "stragglers": [{k: r[k] for k in STRAGGLER_KEYS} for r in self.stragglers.to_dict("records")],
            "collectives": [{k: r[k] for k in COLLECTIVE_KEYS} for r in self.collectives.to_dict("records")],
            "findings": [f.to_dict() for f in self.findings],
        })

    @property
    def straggler_ranks(self) -> list[int]:
        return [int(r) for r in self.stragglers["rank"]]

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The cluster view with its text/plain and static text/html fallbacks (a cell's last value)."""
        return render("cluster.bundle", self)

    def __repr__(self) -> str:
        return (f"<ClusterResult {self.group.get('name')!r}: {len(self.ranks)} ranks, stragglers "
                f"{self.straggler_ranks or 'none'}, {len(self.collectives)} collectives>")


def cluster_analysis(group, scheduler=None) -> ClusterResult:
    """The cross-rank analysis of a ProfileGroup (stored: each rank is read where it is summarised;
    in memory: summarised as it is). ``scheduler``: a Dask scheduler address (``tcp://HOST:PORT``) or
    Client to run the per-rank work on; None runs it here, one rank at a time."""
    con = X.connect()
    rows, workers, base = [], set(), None
    try:
        for s in summaries(group, scheduler):
            base = s.t0_ns if base is None else base
            X.append(con, "coll", s.rank, s.collectives, s.t0_ns - base)
            X.append(con, "steps", s.rank, s.steps, s.t0_ns - base)
            rows.append({**s.row, "worker": s.worker})
            if s.worker:
                workers.add(s.worker)
        cross = X.cross_rank(con)
    finally:
        con.close()
    ranks = _rank_table(rows, cross)
    slow = stragglers(ranks)
    info = {
        "name": group.name, "path": str(group.directory.resolve()) if group.directory is not None else None,
        "ranks": [int(r) for r in ranks["rank"]], "world_size": group.meta.get("world_size"),
        "events": int(ranks["events"].sum()) if len(ranks) else 0,
        "engine": "duckdb" if scheduler is None else f"dask ({_address(scheduler)}) + duckdb",
        "workers": sorted(workers), "straggler_test": TEST, "clocks": CLOCKS, "matching": MATCHING,
    }
    return ClusterResult(group=info, ranks=ranks, stragglers=slow, collectives=cross["collectives"],
                         steps=cross["step_waits"], findings=straggler_findings(ranks, slow, group.name))


def _rank_table(rows: list[dict], cross: dict) -> pd.DataFrame:
    ranks = pd.DataFrame(rows)
    if not len(ranks):
        return pd.DataFrame(columns=list(RANK_KEYS))
    ranks = ranks.merge(cross["waits"], on="rank", how="left").merge(cross["offsets"], on="rank", how="left")
    ranks["comm_wait_ns"] = ranks["comm_wait_ns"].fillna(0).astype(np.int64)
    ranks["offset_ns"] = ranks["offset_ns"].fillna(0).astype(np.int64)
    ranks["active_ns"] = ranks["wall_ns"] - ranks["comm_wait_ns"]
    first = list(RANK_KEYS)
    rest = [c for c in ("device", "kernels", "data_loading_ns", "active_ns", "offset_ns", "steps", "events", "worker")
            if c in ranks.columns]
    return ranks[first + rest].sort_values("rank", kind="stable").reset_index(drop=True)


def _address(scheduler) -> str:
    return str(getattr(scheduler, "scheduler", None) and scheduler.scheduler.address or scheduler)
