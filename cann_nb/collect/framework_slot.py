"""One recording per process for profilers that are process-wide (TensorFlow's, MindSpore's).

``tf.profiler.experimental.start`` while another session records raises ``AlreadyExistsError``; two
MindSpore profilers share one C++ profiler. The collector that records holds its framework's slot;
another collector of that framework is then ``unavailable`` with the holder named. A slot whose thread
has ended is free again (a profile left open by a dead thread does not block later ones).
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_holders: dict[str, tuple[object, threading.Thread]] = {}


def _message(framework: str, thread: threading.Thread) -> str:
    return (f"another profile (thread {thread.name!r}) is recording with {framework}'s profiler in this "
            f"process; {framework} records one profile at a time")


def busy_reason(framework: str, holder=None) -> str | None:
    """None when ``framework``'s profiler is free (or held by ``holder``), else why not."""
    with _lock:
        got = _holders.get(framework)
        if got is None or got[0] is holder or not got[1].is_alive():
            return None
        return _message(framework, got[1])


def claim(framework: str, holder) -> str | None:
    """Take the slot for ``holder``: None, or why it is taken."""
    with _lock:
        got = _holders.get(framework)
        if got is not None and got[0] is not holder and got[1].is_alive():
            return _message(framework, got[1])
        _holders[framework] = (holder, threading.current_thread())
        return None


def release(framework: str, holder) -> None:
    with _lock:
        if _holders.get(framework, (None,))[0] is holder:
            del _holders[framework]
