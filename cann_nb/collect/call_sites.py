"""Which Python line the recording thread is on, sampled: the call sites of a torch recording.

torch.profiler without ``with_stack`` (the default: stacks cost a lot on tiny ops) records no Python
line, and once the memory budget stops op recording (collect/budget.py) it records nothing at all. The
budget's watcher thread therefore also samples the recording thread's innermost frame of user code
(``sys._current_frames``: a few microseconds) at each of its ticks, through the whole run. The result,
``meta["call_sites"]``, is a small table by line: samples, and how many fell while ops were recorded, so
the advisor can put the recorded ops on a line and scale them to the whole run
(analyze/rules/call_sites.py); and by stack (the user frames the line runs under), with the loops of those
files that carry state from pass to pass (collect/loop_facts.py), so the advisor knows which share of the
time lies in a loop no vectorisation removes (analyze/sequential_loops.py).
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import time

from .loop_facts import file_loops

_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))    # the cann_nb package
_LIBRARY = tuple({os.path.abspath(p) for p in (sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib"),
                                                sysconfig.get_paths().get("stdlib")) if p})
MAX_LINES = 50      # lines kept in meta, most sampled first
MAX_STACKS = 200    # user stacks kept in meta, most sampled first
MAX_DEPTH = 12      # user frames kept per stack, innermost first


def _is_user(filename: str) -> bool:
    if not filename or filename.startswith("<frozen"):
        return False
    path = os.path.abspath(filename)
    return not path.startswith(_OWN) and not path.startswith(_LIBRARY)


class CallSiteSampler:
    """Samples thread ``ident``'s innermost user frame; ``sample()`` from any thread."""

    def __init__(self, ident: int, t0_ns: int):
        self.ident, self.t0_ns = ident, t0_ns
        self.counts: dict[tuple, list] = {}     # (file, line, function) -> [samples, recorded samples]
        # the user frames the innermost one runs under ("file:line", innermost first) -> [samples, recorded]:
        # which loop of the user's a sample fell in (analyze/sequential_loops.py)
        self.stacks: dict[tuple, list] = {}
        self.samples = 0
        self.first_ns = self.last_ns = None

    def sample(self, recording: bool) -> None:
        frame = sys._current_frames().get(self.ident)
        while frame is not None and not _is_user(frame.f_code.co_filename):
            frame = frame.f_back
        now = time.time_ns() - self.t0_ns
        self.first_ns = now if self.first_ns is None else self.first_ns
        self.last_ns = now
        self.samples += 1
        if frame is None:
            return
        key = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        slot = self.counts.setdefault(key, [0, 0])
        slot[0] += 1
        slot[1] += bool(recording)
        chain = []
        while frame is not None and len(chain) < MAX_DEPTH:
            if _is_user(frame.f_code.co_filename):
                chain.append(f"{frame.f_code.co_filename}:{frame.f_lineno}")
            frame = frame.f_back
        slot = self.stacks.setdefault(tuple(chain), [0, 0])
        slot[0] += 1
        slot[1] += bool(recording)

    def meta(self, period_s: float) -> dict:
        rows = sorted(self.counts.items(), key=lambda kv: -kv[1][0])[:MAX_LINES]
        return {
            "period_ns": int(period_s * 1e9), "samples": self.samples, "first_ns": self.first_ns,
            "last_ns": self.last_ns,
            "lines": [{"file": f, "line": int(n), "function": fn, "code": linecache.getline(f, n).strip() or None,
                       "samples": c[0], "recorded_samples": c[1]} for (f, n, fn), c in rows],
            "stacks": [{"frames": list(k), "samples": c[0], "recorded_samples": c[1]}
                       for k, c in sorted(self.stacks.items(), key=lambda kv: -kv[1][0])[:MAX_STACKS]],
            "loops": self._loops(),
        }

    def _loops(self) -> list[dict]:
        """The loops carrying state from pass to pass in the sampled user files (collect/loop_facts.py)."""
        files = {fl.rpartition(":")[0] for k in self.stacks for fl in k}
        out = []
        for f in sorted(files):
            try:
                out += file_loops(f)
            except Exception as exc:   # said in the meta, never raised into the recording's stop
                out.append({"file": f, "error": f"{type(exc).__name__}: {exc}"[:300]})
        return out
