"""``python -m cann_nb`` / ``cann-nb``: profile scripts and work with stored profiles from a shell.

Exit codes: 0 success, 1 the profiled script failed (or a check failed), 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__, flags
from .errors import CannNbError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cann-nb", description="Notebook-native profiler for AI models.")
    p.add_argument("--version", action="version", version=f"cann_nb {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser("run", help="profile a Python script and store the profile",
                         description="Profile SCRIPT with the same collectors and flags as %%%%cann_profile. "
                                     "Options may come before or after SCRIPT; arguments cann-nb does not know, "
                                     "and everything after '--', go to the script.")
    for names, kwargs in flags.PROFILE_FLAGS:
        run.add_argument(*names, **kwargs)
    run.add_argument("--quiet", action="store_true", help="print only where the profile went")
    run.add_argument("script", help="the Python script to run")

    imp = sub.add_parser("import", help="import a Kineto trace, an Ascend folder/database or a folder of ranks",
                         description="Import a profile recorded elsewhere into the store. A folder of ranks "
                                     "becomes a group with one profile per rank, imported in parallel processes.")
    imp.add_argument("path", help="trace file, Ascend *_ascend_pt / PROF_* folder or .db, or a folder of ranks")
    imp.add_argument("-o", "--output", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    imp.add_argument("-n", "--name", default=None, help="profile name (default: from the file or folder name)")
    imp.add_argument("--workers", type=int, default=None, help="processes for a multi-rank import (default: cores)")
    imp.add_argument("--quiet", action="store_true", help="print only where the profile went")

    ls = sub.add_parser("list", help="list the profiles stored in a directory")
    ls.add_argument("dir", nargs="?", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    ls.add_argument("--versions", action="store_true", help="include older versions (NAME@k)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    ours, script_args = argv, []
    if "--" in argv:
        cut = argv.index("--")
        ours, script_args = argv[:cut], argv[cut + 1:]
    try:
        args, unknown = parser.parse_known_args(ours)
    except SystemExit as exc:  # argparse: 0 for --help, 2 for usage errors
        return int(exc.code or 0)
    if unknown and args.command != "run":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if args.command == "run":
            return _cmd_run(args, unknown + script_args)
        if args.command == "list":
            return _cmd_list(args)
        if args.command == "import":
            return _cmd_import(args)
    except flags.FlagError as exc:
        print(f"cann-nb {args.command}: {exc}", file=sys.stderr)
        return 2
    except CannNbError as exc:
        print(f"cann-nb {args.command}: {exc}", file=sys.stderr)
        return 2
    return 2


def _cmd_run(args, script_args) -> int:
    from pathlib import Path

    from .runner import profile_script
    from .store import Session

    flags.check(args)
    if not Path(args.script).is_file():
        print(f"cann-nb run: no such script: {args.script}", file=sys.stderr)
        return 2
    profile, code = profile_script(args.script, script_args, args)
    store = Session(args.output)
    stored = store.add(profile)
    where = store.path(stored)
    profile.meta["stored_at"] = str(where)
    if not args.quiet:
        print(profile.summary_text())
    else:
        print(where)
    return code


def _cmd_list(args) -> int:
    from .store import Session

    table = Session(args.dir).list(versions=args.versions)
    if table.empty:
        print(f"no profiles in {Session(args.dir).root}")
    else:
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_colwidth", 60):
            print(table.to_string(index=False))
    return 0


def _cmd_import(args) -> int:
    from .loading import default_name, load
    from .store import ProfileGroup, Session

    from pathlib import Path

    obj = load(args.path, workers=args.workers, progress=not args.quiet)
    store = Session(args.output)
    name = args.name or (obj.name if isinstance(obj, ProfileGroup) else None) or default_name(Path(args.path))
    name = default_name(Path(name))  # a safe directory name
    if isinstance(obj, ProfileGroup):
        stored = store.add_group(name, {r: obj[r] for r in obj.ranks}, obj.meta)
        text = store[stored].summary_text()
    else:
        stored = store.add(obj, name)
        obj.meta["stored_at"] = str(store.path(stored))
        text = obj.summary_text()
    print(store.path(stored) if args.quiet else text + f"\n  stored: {store.path(stored)}")
    return 0
