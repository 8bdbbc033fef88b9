"""The IPython shell the in-cell overhead benchmarks drive (overhead.py, overhead_frameworks.py)."""

import time

from IPython.core.interactiveshell import InteractiveShell


def timed_shell():
    """(shell, cann_nb runtime, post): an IPython shell with cann_nb loaded whose post-processing after
    each profiled cell is timed into the list ``post`` (so in-cell time can leave it out)."""
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "cann_nb")
    from cann_nb.frontends.magic import runtime_for

    runtime = runtime_for(ip)
    post = []
    original = runtime.finalize

    def timed_finalize():
        t = time.perf_counter()
        original()
        post.append(time.perf_counter() - t)

    runtime.finalize = timed_finalize
    return ip, runtime, post


def run_timed(ip, post, cell: str, label: str) -> tuple[float, float | None]:
    """Run ``cell`` once: (its in-cell seconds with cann_nb's post-processing left out, the
    post-processing seconds or None when the cell profiled nothing)."""
    post.clear()
    t = time.perf_counter()
    res = ip.run_cell(cell)
    total = time.perf_counter() - t
    if not res.success:
        raise SystemExit(f"{label} failed: {res.error_in_exec!r}")
    spent = post[0] if post else None
    return total - (spent or 0.0), spent
