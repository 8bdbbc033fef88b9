"""Profile a Python script the way %%cann_profile profiles a cell (used by ``python -m cann_nb run``)."""

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

def profile_script(script: str, script_args: list[str], args) -> tuple[Profile, int]:
    """Run ``script`` with ``script_args`` under the collectors; return (profile, exit code).

    The exit code is the script's own: 0, its SystemExit code, 1 if it raised, 130 on Ctrl-C.
    Warm-up runs (--warmup) execute the script without collecting; each repeat is one step.
    """
    path = Path(script)
    source = path.read_text(encoding="utf-8", errors="replace")
    names = args.collector_names or auto.for_script(source)
    name = args.name or re.sub(r"[^A-Za-z0-9_.\-]", "_", path.stem) or "script"
    session = CollectionSession(name, names, flags.options(args), {
        "kind": "script", "path": str(path.resolve()), "argv": list(script_args),
        "repeat": args.repeat, "warmup": args.warmup})
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = [str(path), *script_args]
    sys.path.insert(0, str(path.resolve().parent))
    code = 0
    try:
        for _ in range(args.warmup):
            _run(path)
        session.start()
        for _ in range(args.repeat):
            if args.repeat > 1:
                session.mark_step()
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
