"""``eager_log_messages``: log messages built on every call and then dropped by a disabled level.

``log.debug(f"state {state!r}")`` formats its message -- the f-string, the reprs of whatever it shows, the
calls that compute its arguments -- before ``Logger.debug`` is called; with DEBUG off the logger checks its
level and returns, and the message is thrown away. The logging HOWTO's "Optimization" section and pylint's
``logging-fstring-interpolation`` (W1203) say the same: pass the values as arguments (``log.debug("state
%r", state)``), which the logger formats only for a record it emits, or guard costly arguments with
``if log.isEnabledFor(logging.DEBUG):``.

Reasoned from the work the trace shows: a logging call that emitted nothing (no ``Logger._log`` under
it) made from a user's line, and the line's time outside that call -- the message's construction --
which neither fix runs. Gain: the lines' time less their logging calls, net of the profiler's records
(replayed where device work may hide host time); the executions of a
function whose lines stopped being traced (its line budget spent) are counted from its logging calls,
which are still recorded, at the traced executions' mean.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..python_spans import call_kinds, user_frames
from ..timeline import outermost
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain
from .host import LINE_RE, recording_in_subtree

LEVELS = "debug|info|warning|warn|error|exception|critical|fatal|log"
# a logger's methods and the module-level shortcuts (logging.debug calls root.debug)
LOG_CALL_RE = re.compile(rf"^logging\.((Logger|LoggerAdapter)\.)?({LEVELS})$")
EMIT_RE = re.compile(r"^logging\.Logger\._log$")   # a record is made: the message is formatted by a handler


def _dropped_calls(ctx) -> np.ndarray:
    """The user's logging calls (outermost) under which no record was made."""
    kinds = call_kinds(ctx)
    calls = np.flatnonzero(kinds["py"] & ctx.flag(LOG_CALL_RE))
    if not len(calls):
        return calls
    calls = outermost(ctx, calls)
    emitted = ctx._has_descendant(kinds["py"] & ctx.flag(EMIT_RE))
    return calls[~emitted[calls]]


def eager_log_messages(ctx, th):
    """Per user's line: ``min_calls`` or more logging calls that emitted nothing, and the line's time
    outside them longer than the calls themselves and ``min_pct`` or more of the run (without the
    profiler's records). Gain: see the module docstring."""
    if "call_kind" not in ctx.events or not ctx.n:
        return
    calls = _dropped_calls(ctx)
    if len(calls) < th["min_calls"]:
        return
    parent = ctx.rows_of_parent[calls]
    user_line = ctx.flag(LINE_RE) & user_frames(ctx)
    on_line = (parent >= 0) & user_line[np.maximum(parent, 0)]
    # calls made where the function's lines were no longer traced: their parent is the function's frame
    frame_of, code_of = ctx.rows_of_parent, ctx.name_code
    found = []
    for code in np.unique(code_of[parent[on_line]]):
        mine = on_line & (code_of[np.maximum(parent, 0)] == code)
        lines = np.unique(parent[mine])
        logged = calls[mine]
        if len(logged) < th["min_calls"]:
            continue
        # untraced executions: calls from the frames these lines ran in, with no line around them, when
        # no other line of those frames' code logs
        frames = np.unique(frame_of[lines])
        frame_codes = np.unique(code_of[frames[frames >= 0]])
        untraced = ~on_line & np.isin(code_of[np.maximum(parent, 0)], frame_codes) & (parent >= 0)
        other_loggers = np.unique(code_of[parent[on_line & np.isin(frame_of[np.maximum(parent, 0)], frames)]])
        extra = int(np.count_nonzero(untraced)) if len(other_loggers) == 1 else 0
        line_ns = covered_ns(ctx, lines)
        built_ns = line_ns - float(ctx.dur[logged].sum())
        # the line's own time no longer than the logging call it makes is what making any call costs a
        # line under the tracer (the call's record, its arguments loaded: a lazy call's line takes 0.9x its
        # call), not a message built; both are profiled times, with their records in them alike
        if built_ns <= float(ctx.dur[logged].sum()):
            continue
        found.append((code, lines, logged, extra, line_ns, built_ns))
    rec = recording_in_subtree(ctx)
    for code, lines, logged, extra, line_ns, built_ns in found:
        traced = len(lines)
        if ctx.is_device_task.any():   # host time may hide behind device work: replayed
            factor = np.ones(ctx.n)
            factor[lines] = 0.0          # the line's own time and the calls computing the message ...
            factor[logged] = 1.0         # ... but for the logging call itself, which stays
            gain, conf = _factor_gain(ctx, np.concatenate([lines, logged]), factor)
        else:
            # a host-only run is its host thread: the messages' time without the profiler's records
            # (recording_cost.py: what the records in the line cost, less those in the logging call)
            bare = (ctx.dur[lines].sum() - ctx.dur[logged].sum()) - (rec[lines].sum() - rec[logged].sum())
            gain, conf = max(float(bare), 0.0), 0.7
        gain = min(gain * (traced + extra) / traced, ctx.wall_without_recording)
        if pct(gain, ctx.wall_without_recording) < th["min_pct"]:
            continue
        label = str(ctx.name_cats[code])
        src = label.split(": ", 1)[1] if ": " in label else label
        method = str(ctx.name_cats[ctx.name_code[logged[0]]])
        per = built_ns / traced
        title = (f"Log messages built and dropped: {src[:80]} ran {traced + extra:,} times, each building its "
                 f"message ({F.ns(per)} profiled) for {method.rsplit('.', 1)[-1]}(), whose level is off: "
                 f"about {F.ns(gain)} without the profiler, {pct(gain, ctx.wall_without_recording):.0f}% of the run")
        yield make_finding(
            ctx, "eager_log_messages", "redundant", title,
            evidence={"line": label, "calls": int(len(logged) + extra), "traced_executions": int(traced),
                      "untraced_calls": int(extra), "logging_call": method, "line_ns": float(line_ns),
                      "message_ns": float(built_ns), "message_ns_per_call": float(per)},
            ops=[label], suggestion=(
                "Pass the values as arguments and let the logger format them only for a record it emits "
                "(log.debug(\"state %r\", state) instead of an f-string or %-formatted message); for an argument "
                "that is costly to compute, guard the call: if log.isEnabledFor(logging.DEBUG): ..."),
            gain_ns=gain, method=METHOD_CP + " (the lines' time less their logging calls removed; executions past "
            "the line budget counted from the logging calls)", confidence=conf * 0.8, rows=lines,
            affected_ns=line_ns)
