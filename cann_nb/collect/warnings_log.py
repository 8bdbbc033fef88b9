"""The warnings the user's code raised while it was profiled, with where they came from.

Libraries say when they take a slow path: pandas' ``PerformanceWarning`` (indexing an unsorted
MultiIndex past its lexsort depth, a frame fragmented by column inserts), scipy's
``SparseEfficiencyWarning`` (changing a CSR matrix's sparsity), torch's "creating a tensor from a list of
numpy.ndarrays is extremely slow". Shown once per place and scrolled past, they are evidence the advisor
can join to the time of the line that raised them (analyze/rules/library_warnings.py).

``warnings.showwarning`` is wrapped for the duration (the original still shows everything it showed
before: nothing the user sees changes); the filters are left alone, so warnings the user ignores stay
unrecorded, and a warning shown once per place is recorded once. Warnings already shown at a place
before the run (a cell run again) are shown and recorded again: the run starts with the warning
registries reset (``warnings._filters_mutated``, where CPython has it).
"""

from __future__ import annotations

import sys
import sysconfig
import warnings

MAX_RECORDS = 200       # distinct (category, message, place) kept per run
MAX_MESSAGE = 300       # characters of a message kept


class WarningsLog:
    """Install with ``start()``, remove with ``stop()``; ``records()`` after."""

    def __init__(self):
        self._counts: dict[tuple, int] = {}
        self._original = None
        self._hook = None

    def start(self) -> None:
        reset = getattr(warnings, "_filters_mutated", None)
        if callable(reset):
            reset()
        original = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            key = (getattr(category, "__name__", str(category)), str(message)[:MAX_MESSAGE], str(filename), int(lineno),
                   _caller())
            if key in self._counts or len(self._counts) < MAX_RECORDS:
                self._counts[key] = self._counts.get(key, 0) + 1
            return original(message, category, filename, lineno, file, line)

        self._original, self._hook = original, show
        warnings.showwarning = show

    def stop(self) -> None:
        if self._hook is not None and warnings.showwarning is self._hook:
            warnings.showwarning = self._original
        self._hook = None

    def records(self) -> list[dict]:
        """[{category, message, file_line, caller, shown}]: each distinct warning, the place it names, the line
        of the user's code it was raised under (the innermost frame outside the standard library and installed
        packages: a library's warning may name its own line) and the times it was shown."""
        return [{"category": c, "message": m, "file_line": f"{f}:{n}", "caller": u, "shown": k}
                for (c, m, f, n, u), k in self._counts.items()]


_LIBRARY_DIRS = tuple({p for p in (sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib"))
                       if p})


def _caller() -> str | None:
    """file:line of the innermost frame of the user's code on the stack (outside the standard library, the
    installed packages and this package)."""
    f = sys._getframe(2)
    here = __file__.rsplit("/", 2)[0]   # the cann_nb package
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith(_LIBRARY_DIRS) and not name.startswith(here) and not name.startswith("<frozen"):
            return f"{name}:{f.f_lineno}"
        f = f.f_back
    return None
