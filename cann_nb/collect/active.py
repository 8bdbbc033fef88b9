"""The collection session that is running now, so that ``cann_nb.step()`` can mark a step on it.

A CollectionSession registers itself in ``start()`` and unregisters in ``stop()``. One session runs
at a time per process (collectors such as torch.profiler are process-wide); the last one started wins.
"""

from __future__ import annotations

_current = None


def current():
    """The running CollectionSession, or None."""
    return _current


def set_current(session) -> None:
    global _current
    _current = session


def clear(session) -> None:
    """Unregister ``session`` if it is the current one (a later session's registration is kept)."""
    global _current
    if _current is session:
        _current = None


def mark_step() -> bool:
    """Mark the start of a step on the running session; False (and nothing else) when none runs."""
    s = _current
    if s is None or not getattr(s, "running", False):
        return False
    s.mark_step()
    return True
