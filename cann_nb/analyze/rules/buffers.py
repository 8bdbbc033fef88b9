"""``shifted_copy``: a buffer copied whole on every pass of a loop to change a part of it: ``buf =
np.roll(buf, -1, axis=1); buf[:, -1] = x`` (a sliding window kept by shifting), ``buf = np.concatenate([buf[1:],
[x]])``, ``np.append(buf[1:], x)``.

Each pass moves the whole buffer to write one slot: the work is the buffer's size per pass where the data
that changes is one slot. A ring buffer (a head index that wraps, the window unrolled only when it is read)
writes the slot in place. Evidence from the Python tracer's line samples (collect/line_arrays.py): a line
run again and again whose statement moves data (``np.roll``, ``np.concatenate``...; collect/source_facts.py)
and makes a new array of the same name and shape as the one it read, and a line of the same function that
assigns into part of it. Gain: the copying line's executions removed (the slot written in place costs what
the assigning line already costs).
"""

from __future__ import annotations

from ... import formatting as F
from ..line_arrays import line_arrays, line_function
from .arrays import finding_from_lines, where
from .base import pct


def shifted_copy(ctx, th):
    """A line run ``min_runs`` times or more that moves data (source: roll, concatenate, append...) into a new
    array with the name and shape of one it reads (``min_bytes`` or more), and a line of the same function
    storing into part of that name."""
    la = line_arrays(ctx)
    if la.empty:
        return
    recs = [r for r in la.to_dict("records") if r["scope"] == "line" and len(r["rows"])]
    stores = {}   # (function, name) -> the storing line
    for r in recs:
        for o in r["operands"]:
            if o.get("stored"):
                stores.setdefault((line_function(ctx, r), o["name"]), r)
    flagged = []
    for r in recs:
        if len(r["rows"]) < th["min_runs"] or "movement" not in (r.get("work") or ()):
            continue
        ins = {o["name"]: o for o in r["operands"] if o.get("role") == "in"}
        for o in r["operands"]:
            name = o["name"].removesuffix(" (new)")
            same = ins.get(name)
            if o.get("role") != "out" or same is None or same.get("shape") != o.get("shape") \
                    or o["nbytes"] < th["min_bytes"]:
                continue
            writer = stores.get((line_function(ctx, r), name))
            if writer is None or writer is r:
                continue
            flagged.append((r, 1.0, f"copies {name} {tuple(o['shape'])} ({F.nbytes(o['nbytes'])}) whole on each of its "
                                    f"{len(r['rows']):,} runs; line {where(writer['file_line'])} writes a part of it"))
            break
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} {first[2]}: {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) "
                "shifting a buffer by copying it")

    sugg = ("Keep the buffer in place and move a head index instead (a ring buffer: buf[:, head] = x; head = (head + 1) "
            "% n), and unroll it (np.concatenate((buf[:, head:], buf[:, :head]), axis=1)) only when the window is "
            "read; or preallocate the whole output and write each slot once. np.roll / np.concatenate / np.append "
            "copy the whole array on every call.")
    yield from finding_from_lines(ctx, th, "shifted_copy", "memory", flagged, title, sugg,
                                   " (the copying lines' executions removed)",
                                   {"min_runs": th["min_runs"], "min_bytes": th["min_bytes"]})
