"""Stragglers: which ranks the others wait for, by a robust z-score, why, and the findings.

The test: a rank's own time is ``active_ns = wall_ns - comm_wait_ns`` (its wall time less the time it
spent in collectives waiting for the last rank), the time it would take if nobody else were slower. Its
robust z-score (Iglewicz & Hoaglin) is ``0.6745 * (x - median) / MAD``; a rank is a straggler when it is
above ``Z_THRESHOLD`` = 3.5, on the slow side only. The MAD is floored at ``MAD_FLOOR`` (0.2 %) of the
median, so identical healthy ranks do not turn a negligible difference into an infinite score: against
them a rank needs about 1 % more active time than the median (3.5 / 0.6745 x 0.2 %) to be flagged.
With fewer than ``MIN_RANKS`` ranks there is no median to stand out from and no rank is flagged.

The reason is the largest part of the rank's excess over the median rank: device compute (+ memcpy:
``compute``, or ``imbalance`` when it also runs >= 5 % more kernels, i.e. it was given more work), device
idle time (``host``: its device waited for its host; ``data_loading`` when host time in data loading
accounts for at least half of it), or time in collectives after everyone arrived (``slow_link``: the
transfer itself is slower).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import formatting as F
from ..finding import Finding

Z_THRESHOLD = 3.5
MAD_FLOOR = 0.002
MIN_RANKS = 3
MORE_WORK = 0.05
TEST = (f"robust z-score of active_ns = wall_ns - comm_wait_ns: 0.6745 (x - median) / MAD, MAD floored at "
        f"{MAD_FLOOR:.1%} of the median; straggler when z > {Z_THRESHOLD} (Iglewicz-Hoaglin), needs >= {MIN_RANKS} ranks")
COLUMNS = ["rank", "metric", "value", "median", "score", "reason"]

CATEGORY = {"compute": "hotspot", "imbalance": "utilization", "host": "host_bound", "data_loading": "input_pipeline",
            "slow_link": "communication"}
WHAT = {"compute": "device compute time", "imbalance": "device work", "host": "device idle time (waiting for its host)",
        "data_loading": "time loading data", "slow_link": "time in collectives after every rank arrived"}
SUGGESTION = {
    "compute": "The same work runs longer on rank {rank}'s device: compare its kernels with a healthy rank's "
               "(python -m cann_nb compare {group}/rank={median_rank} {group}/rank={rank}) and check the device itself "
               "(clocks, thermal throttling, ECC errors, a different model).",
    "imbalance": "Rank {rank} runs {more:.0%} more kernels than the median rank: it was given more work. "
                 "Rebalance it (data shards, sequence lengths, pipeline stages, expert routing).",
    "host": "Rank {rank}'s device sits idle waiting for its host: look at that rank's host (CPU contention, "
            "other processes, NUMA binding, Python overhead).",
    "data_loading": "Rank {rank} waits for its input: more DataLoader workers, pin_memory and prefetching, "
                    "or check its storage / network reads.",
    "slow_link": "Rank {rank}'s collectives take longer once every rank has arrived: check its network link "
                 "and topology (NCCL_DEBUG=INFO, InfiniBand/RoCE counters, PCIe/NVLink placement).",
}


def robust_z(x: np.ndarray) -> tuple[np.ndarray, float]:
    """(robust z-score per value, the median)."""
    x = np.asarray(x, dtype=np.float64)
    med = float(np.median(x))
    mad = float(np.median(np.abs(x - med)))
    scale = max(mad, MAD_FLOOR * abs(med), 1.0)
    return 0.6745 * (x - med) / scale, med


def excess(ranks: pd.DataFrame) -> pd.DataFrame:
    """Per rank, how much more of each part of its own time it has than the median rank (ns)."""
    transfer = ranks["communication_ns"] - ranks["comm_wait_ns"]
    parts = pd.DataFrame({
        "compute": ranks["compute_ns"] + ranks["memcpy_ns"],
        "host": ranks["idle_ns"],
        "slow_link": transfer,
        "data_loading": ranks["data_loading_ns"],
        "kernels": ranks["kernels"],
    }, index=ranks.index).astype(np.float64)
    return parts - parts.median()


def reason(row_excess: pd.Series, median_kernels: float) -> str:
    main = max(("compute", "host", "slow_link"), key=lambda k: row_excess[k])
    if main == "compute" and median_kernels > 0 and row_excess["kernels"] >= MORE_WORK * median_kernels:
        return "imbalance"
    if main == "host" and row_excess["data_loading"] >= 0.5 * row_excess["host"]:
        return "data_loading"
    return main


def stragglers(ranks: pd.DataFrame) -> pd.DataFrame:
    """DESIGN.md's ``stragglers`` rows (rank, metric, value, median, score, reason), slowest first, plus
    the excess of each part (``excess_*``) that the reason was chosen from."""
    if len(ranks) < MIN_RANKS:
        return pd.DataFrame(columns=COLUMNS)
    active = (ranks["wall_ns"] - ranks["comm_wait_ns"]).to_numpy(np.float64)
    z, med = robust_z(active)
    ex = excess(ranks)
    median_kernels = float(ranks["kernels"].median())
    flagged = np.flatnonzero(z > Z_THRESHOLD)
    rows = []
    for i in flagged[np.argsort(-z[flagged], kind="stable")]:
        rows.append({"rank": int(ranks["rank"].iloc[i]), "metric": "active_ns", "value": float(active[i]),
                     "median": med, "score": float(z[i]), "reason": reason(ex.iloc[i], median_kernels),
                     **{f"excess_{k}_ns": float(ex[k].iloc[i]) for k in ("compute", "host", "slow_link", "data_loading")},
                     "excess_kernels": float(ex["kernels"].iloc[i])})
    return pd.DataFrame(rows, columns=COLUMNS + ["excess_compute_ns", "excess_host_ns", "excess_slow_link_ns",
                                                 "excess_data_loading_ns", "excess_kernels"])


def findings(ranks: pd.DataFrame, slow: pd.DataFrame, group: str = "GROUP") -> list[Finding]:
    """One finding per straggler: who, why, and the time saved if it matched the median rank."""
    if not len(slow):
        return []
    median_wall = float(ranks["wall_ns"].median())
    active = ranks["wall_ns"] - ranks["comm_wait_ns"]
    median_rank = int(ranks["rank"].iloc[int(np.argmin(np.abs(active.to_numpy() - active.median())))])
    others_wait = ranks.set_index("rank")["comm_wait_ns"]
    median_kernels = float(ranks["kernels"].median())
    out = []
    for s in slow.to_dict("records"):
        r, why = s["rank"], s["reason"]
        gain = s["value"] - s["median"]
        pct = 100.0 * gain / median_wall if median_wall > 0 else math.nan
        part = s[f"excess_{'compute' if why == 'imbalance' else why}_ns"]
        title = (f"Rank {r} is a straggler ({why.replace('_', ' ')}): {F.ns(part)} more {WHAT[why]} than the median "
                 f"rank; the other ranks wait for it in collectives (median comm wait "
                 f"{F.ns(float(others_wait.drop(r).median()))}). Matching the median rank saves {F.ns(gain)} "
                 f"({pct:.1f} % of end-to-end)")
        more = s["excess_kernels"] / median_kernels if median_kernels > 0 else 0.0
        out.append(Finding(
            rule="cluster_straggler", category=CATEGORY[why],
            severity="high" if pct >= 10 else "medium" if pct >= 3 else "low",
            title=title,
            evidence={"rank": r, "reason": why, "metric": s["metric"], "value_ns": s["value"], "median_ns": s["median"],
                      "robust_z": s["score"], "test": TEST, "median_rank": median_rank,
                      "excess_ns": {k: s[f"excess_{k}_ns"] for k in ("compute", "host", "slow_link", "data_loading")},
                      "excess_kernels": s["excess_kernels"],
                      "method": "est_gain = the rank's active time (wall - comm wait) minus the median rank's: "
                                "the others stop waiting for it"},
            suggestion=SUGGESTION[why].format(rank=r, median_rank=median_rank, more=more, group=group),
            est_gain_ns=float(gain), est_gain_pct=float(pct)))
    return out
