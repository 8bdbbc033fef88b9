"""Huawei Ascend importer: torch_npu / MindSpore / msprof output -> Profile.

    read_ascend(path, *, t0_ns=None, name=None, rank=None, prefer="auto") -> Profile
    is_ascend(path) -> bool
    find_ranks(path) -> list[(rank | None, Path)]

Accepted paths: a ``*_ascend_pt`` / ``*_ascend_ms`` folder, its ``ASCEND_PROFILER_OUTPUT``, one SQLite
export (``ascend_pytorch_profiler_*.db``, ``ascend_mindspore_profiler_*.db``, ``msprof_*.db``), a native
``PROF_*`` folder or its ``mindstudio_profiler_output``, a legacy MindSpore ``profiler`` folder, a single
``trace_view.json`` or ``kernel_details.csv``. When a folder holds both text and SQLite exports the
SQLite one is read (exact integer ns, every link in one file); ``prefer="text"`` picks the text one.

Mapping (docs/formats.md §1-3; DESIGN.md tables):

* Device tasks (``kernel``/``comm``/``memcpy`` events, device ``npu:N``, track ``npu:N/stream S``, or
  ``npu:N/<core type>`` without a stream, ``npu:N/COMMUNICATION`` for HCCL operators). Source: kernel_details
  / op_summary when present (the profiler's own per-task table with exact ns, core type, block dim,
  shapes and PMU); trace_view only enriches it and adds the MEMCPY_ASYNC tasks kernel_details omits -
  see text_folder.py. SQLite: TASK + COMPUTE_TASK_INFO, COMMUNICATION_OP, MEMCPY tasks. HCCL plane
  sub-tasks and stream-sync tasks are counted in ``meta["skipped"]``, not imported.
* Extra event columns: op_type, core_type, op_state, hf32_eligible, input_formats, output_shapes,
  output_dtypes, output_formats, group (HCCL group), task_type (hardware task type), stream_id, task_id,
  model_id, context_id, step, block_dim, mix_block_dim, wait_ns, host_op_id (id of the framework op that
  launched the task, -1 if unknown), pmu_* (every metric column of the aic_metrics group, snake_case with
  the unit kept: pmu_aic_mac_ratio, pmu_aiv_vec_time_us, pmu_cube_utilization_pct, pmu_l2_hit_rate...).
* ``corr`` = CANN ``connection_id``: shared by a device task and the CANN API call that launched it
  (``runtime`` events, ``AscendCL@...``/``Node@launch``).
* Host: framework ops (``op``, track ``host/thread TID``), CANN API and task-queue Enqueue/Dequeue
  (``runtime``), mstx (``annotation``), nested per thread; with ``python_functions=True`` also the
  with_stack Python frames (``python``, own lane ``host/thread TID/python``).
* Steps: one ``step`` event per step (host ProfilerStep#N span / STEP_TIME, else the device extent of
  the Step Id); step_trace_time's breakdown in ``meta["ascend"]["step_trace"]`` (ns).
* Memory: memory_record samples (``kind`` sample, ``component``), operator_memory alloc/free rows with
  ``delta_bytes`` (``kind`` alloc/free, ``op_name``); MB/KB taken from each header (binary units).
* Counters: ``module_mem:<component>`` (bytes, npu_module_mem), ``npu_mem:APP/HBM`` etc. (bytes),
  ``aicore_freq_mhz``, and trace_view's other counters as ``<process>/<name>/<key>`` in file units.
* Meta: t0_ns, rank, world_size, device (e.g. Ascend910B), devices, environment (versions, ENV_VARIABLES),
  options (profiler_level, aic_metrics...), source {path, format, files}, skipped (left out on purpose), and ``ascend``:
  profiler_info, profiler_metadata, step_trace, communication, op_statistic, api_statistic, cross_checks.

Times are int64 ns relative to ``t0_ns`` (default: earliest event); epoch-µs strings are converted
exactly. Malformed input raises TraceFormatError naming the file, the place and what was expected.
"""

from __future__ import annotations

from pathlib import Path

from pyarrow.lib import ArrowException

from ...errors import CannNbError, TraceFormatError
from ...model import Profile
from .assemble import Parts, build_profile
from .comm import load_json
from .detect import Layout, detect, find_ranks, is_ascend

__all__ = ["read_ascend", "is_ascend", "find_ranks", "detect", "Layout"]


def read_ascend(path, *, t0_ns: int | None = None, name: str | None = None, rank: int | None = None,
                prefer: str = "auto", python_functions: bool = False) -> Profile:
    """Import one Ascend run (one rank) as a validated Profile. See the module docstring.

    ``prefer`` picks the text or SQLite export when a folder holds both (default: SQLite).
    ``python_functions`` keeps with_stack Python frames (cat ``python``, lane ``host/thread TID/python``);
    like the Kineto importer they are left out by default (counted in ``meta["skipped"]``), since
    with_stack runs can hold millions of them.
    """
    if prefer not in ("auto", "text", "db"):
        raise ValueError(f"prefer must be 'auto', 'text' or 'db', not {prefer!r}")
    try:
        layout = detect(path, prefer)
        layout.given = Path(path)
        parts = _read(layout)
        return build_profile(parts, t0_ns=t0_ns, name=name, rank=rank, python_functions=python_functions)
    except CannNbError:
        raise
    except (KeyError, ValueError, TypeError, IndexError, AttributeError, OverflowError, UnicodeError,
            OSError, MemoryError, ArrowException) as exc:  # anything a malformed file can still provoke
        raise TraceFormatError(Path(path), "", "a readable Ascend profile",
                               f"{type(exc).__name__}: {exc}") from exc


def _read(layout: Layout) -> Parts:
    parts = Parts(path=layout.given or layout.path, fmt=layout.fmt)
    if layout.skipped:
        parts.ascend["skipped_files"] = list(layout.skipped)
    if layout.info_json is not None:
        info = load_json(layout.info_json)
        if not isinstance(info, dict):
            raise TraceFormatError(layout.info_json, "top level", "a JSON object", f"got {type(info).__name__}")
        parts.ascend["profiler_info"] = info
        parts.files.append(str(layout.info_json))
    if layout.metadata_json is not None:
        md = load_json(layout.metadata_json)
        if isinstance(md, dict):
            parts.ascend["profiler_metadata"] = md
            parts.files.append(str(layout.metadata_json))
    if layout.fmt.endswith("-db"):
        from .sqlite_db import read_db

        read_db(layout.db, parts, layout.analysis_db)
        if layout.files.get("communication") and "communication" not in parts.ascend:
            from . import comm

            ops = comm.read_communication(layout.files["communication"][0])
            parts.ascend["communication"] = {"ops": ops, "totals": comm.summarise(ops)}
    elif layout.fmt.startswith("msprof"):
        from .msprof import read_msprof

        read_msprof(layout, parts)
    elif layout.fmt == "mindspore-legacy":
        from .legacy import read_legacy

        read_legacy(layout.files, parts)
    else:
        from .text_folder import read_text_folder

        read_text_folder(layout.files, parts)
    return parts
