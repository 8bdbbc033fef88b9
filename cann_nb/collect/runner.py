"""The warm-up/repeat loop, and profiling a Python script the way %%cann_profile profiles a cell (used by
``python -m cann_nb run``).

``runs(session, warmup, repeat)`` is the one loop of both: the script runner iterates it around
``runpy``; the profiled cell's rewritten code iterates it around the cell's statements (magic.py: the
statements must run in the cell's own namespace, so the loop cannot take them as a function)."""

from __future__ import annotations

import os
import re
import runpy
import sys
import traceback
from pathlib import Path

from . import flags
from . import auto
from .session import CollectionSession
from ..model import Profile


def runs(session: CollectionSession, warmup: int, repeat: int, adopt_caller: bool = False):
    """Yield once per run of the user's code: ``warmup`` runs unprofiled, then (the session started,
    unless it already runs) ``repeat`` profiled runs, each one step when ``repeat > 1``. The caller
    stops the session. ``adopt_caller``: see ``CollectionSession.start``."""
    for _ in range(warmup):
        yield "warmup"
    if not session.running:
        session.start(adopt_caller=adopt_caller)
    for i in range(repeat):
        if repeat > 1:
            session.mark_step()
        yield i


def profile_script(script: str, script_args: list[str], args) -> tuple[Profile, int]:
    """Run ``script`` with ``script_args`` under the collectors; return (profile, exit code).

    The exit code is the script's own: 0, its SystemExit code, 1 if it raised, 130 on Ctrl-C.
    Warm-up runs (--warmup) execute the script without collecting; each repeat is one step.
    """
    path = Path(script)
    source = path.read_text(encoding="utf-8", errors="replace")
    names = args.collector_names or auto.for_script(source, path)
    name = args.name or re.sub(r"[^A-Za-z0-9_.\-]", "_", path.stem) or "script"
    session = CollectionSession(name, names, flags.options(args), {
        "kind": "script", "path": str(path.resolve()), "argv": list(script_args)})
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = [str(path), *script_args]
    sys.path.insert(0, str(path.resolve().parent))
    code = 0
    try:
        for _ in runs(session, args.warmup, args.repeat):
            _run(path)
        session.stop()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        session.stop("ok" if code == 0 else "failed", None if code == 0 else f"SystemExit({exc.code!r})")
    except KeyboardInterrupt:
        session.stop("interrupted", "KeyboardInterrupt")
        print("cann_nb: interrupted; keeping the partial profile", file=sys.stderr)
        code = 130
    except BaseException as exc:
        session.stop("failed", f"{type(exc).__name__}: {exc}")
        traceback.print_exc()
        code = 1
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path and sys.path[0] == str(path.resolve().parent):
            sys.path.pop(0)
    profile = session.finish()
    profile.meta["options"].update(repeat=args.repeat, warmup=args.warmup)
    return profile, code


def _run(path: Path) -> None:
    runpy.run_path(os.fspath(path), run_name="__main__")
