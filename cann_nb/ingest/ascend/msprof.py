"""Native msprof output: ``PROF_*/mindstudio_profiler_output`` (text) and ``PROF_*/msprof_*.db``.

The text files are the same tables torch_npu post-processes (op_summary ≙ kernel_details with
op_summary header names, msprof_*.json ≙ trace_view without the Python process, memory files in KB),
so they go through the same readers: header names and units are read from each file (formats.md §1,
§3.1, §3.6). Big outputs are sliced (``op_summary_slice_0_*.csv``, ``msprof_slice_0_*.json``): every
slice of a role is read and concatenated. msprof's own ``step_trace_*.csv`` (iteration FP/BP points,
a different schema from torch_npu's step_trace_time) is not imported.
"""

from __future__ import annotations

from .assemble import Parts
from .detect import Layout
from .sqlite_db import read_db
from .text_folder import read_text_folder


def read_msprof(layout: Layout, parts: Parts) -> Parts:
    if layout.fmt == "msprof-db":
        return read_db(layout.db, parts)
    return read_text_folder(layout.files, parts)
