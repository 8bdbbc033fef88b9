"""Legacy MindSpore (<= 2.2, MindInsight) profiler files (formats.md §3.11, S6).

These files carry no per-task timestamps: ``aicore_intermediate_*_detail.csv`` has a total execution
time per operator (ms), ``framework_raw_*.csv`` the task/stream/block_dim of each operator,
``step_trace_raw_*_detail_time.csv`` step points in system-counter cycles (no frequency is recorded
beside them). Spans cannot be built without inventing start times, so this reader imports no events:
it keeps the per-operator totals and step points in ``meta["ascend"]["legacy"]`` and says so.
"""

from __future__ import annotations

from .assemble import Parts
from .csv_text import Columns, read_csv, read_stat_table


def read_legacy(files: dict, parts: Parts) -> Parts:
    legacy: dict = {"note": "legacy MindSpore files carry no per-task timestamps; no spans were imported"}
    for role, key in (("aicore_detail", "aicore_op_time_ms"), ("aicore_type", "aicore_type_time_ms"),
                      ("step_trace_raw", "step_points_syscnt")):
        for p in files.get(role, []):
            legacy.setdefault(key, []).extend(read_stat_table(p))
            parts.files.append(str(p))
    for p in files.get("framework_raw", []):
        df = read_csv(p)
        cols = Columns(df, p)
        keep = [c for c in (cols.name("task_id"), cols.name("stream_id"), cols.name("block_dim"),
                            cols.name("full_op_name"), cols.name("op_type")) if c]
        legacy.setdefault("framework_ops", []).extend(df[keep].to_dict("records"))
        parts.files.append(str(p))
    parts.ascend["legacy"] = legacy
    return parts
