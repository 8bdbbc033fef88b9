"""``python -m cann_nb`` / ``cann-nb``: profile scripts and work with stored profiles from a shell.

    cann-nb run SCRIPT [profiling flags] [--skip-steps N] [-- script args]
    cann-nb import PATH            cann-nb list [DIR]
    cann-nb analyze PROFILE [--json]
    cann-nb cluster GROUP [--json] [--scheduler tcp://HOST:PORT]
    cann-nb compare A B [--json]
    cann-nb check --threshold 200ms --file PROFILE_OR_DIR [...] [--json] [--junit FILE]
    cann-nb report PROFILE [-o FILE.html]
    cann-nb monitor-report DIR [--tail N] [--fail-on-anomaly]

PROFILE is a profile directory (``OUTPUT/NAME``), any importable trace or folder, or a name in the
store (``NAME``, ``NAME@k``, ``GROUP/rank=N``; ``--store DIR``, default $CANN_NB_DIR or ./profile_results),
resolved by ``ingest.load.resolve``.

Exit codes: 0 success; 1 the profiled script failed (run) or a budget was breached (check);
2 bad input or usage (argparse errors included); 3 the profile could not be stored (run, import);
130 interrupted (Ctrl-C). ``run`` passes the script's own exit code through.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys

from .. import __version__
from ..collect import flags
from ..errors import CannNbError

_STORE_HELP = "store directory for PROFILE names (default: $CANN_NB_DIR or ./profile_results)"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cann-nb", description="Notebook-native profiler for AI models.",
                                epilog="Exit codes: 0 ok, 1 script failed / budget breached, 2 bad input or usage, "
                                       "3 the profile could not be stored, 130 interrupted. "
                                       "'cann-nb COMMAND --help' describes each command.")
    p.add_argument("--version", action="version", version=f"cann_nb {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser("run", help="profile a Python script and store the profile",
                         description="Profile SCRIPT with the same collectors and flags as %%cann_profile "
                                     "(CANN Profiler's form '--model SCRIPT' works too). cann-nb's options may come "
                                     "before or after SCRIPT; after it, options cann-nb does not know go to the "
                                     "script, and so does everything after '--'. An unknown option before SCRIPT, "
                                     "or a misspelling of one of cann-nb's anywhere, is an error. Per-iteration "
                                     "times: call cann_nb.step() at the start of each iteration of the script's "
                                     "loop (a no-op when not profiling), or use --repeat N (one step per run of "
                                     "the script). Exit code: the script's, 3 when the profile could not be stored.")
    _add_run_options(run)
    run.add_argument("script", nargs="?", help="the Python script to run (or --model SCRIPT)")
    run.add_argument("script_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    imp = sub.add_parser("import", help="import a Kineto trace, an Ascend folder/database, an XProf *.xplane.pb (TensorFlow/JAX), "
                         "a MindSpore profiler folder or a folder of ranks",
                         description="Import a profile recorded elsewhere into the store. A folder of ranks "
                                     "becomes a group with one profile per rank, imported in parallel processes.")
    imp.add_argument("path", help="trace file, Ascend *_ascend_pt / PROF_* folder or .db, *.xplane.pb or TensorBoard logdir, "
                     "MindSpore *_ascend_ms folder, or a folder of ranks")
    imp.add_argument("-o", "--output", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    imp.add_argument("-n", "--name", default=None, help="profile name (default: from the file or folder name)")
    imp.add_argument("--workers", type=int, default=None, help="processes for a multi-rank import (default: cores)")
    imp.add_argument("--quiet", action="store_true", help="print only where the profile went")

    ls = sub.add_parser("list", help="list the profiles stored in a directory")
    ls.add_argument("dir", nargs="?", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    ls.add_argument("--versions", action="store_true", help="include older versions (NAME@k)")
    ls.add_argument("--repair", action="store_true",
                    help="first put the store in order (what an interrupted write left: a NAME only at NAME@k, "
                         "old .tmp-* folders) and say what was repaired")

    an = sub.add_parser("analyze", help="summary, hotspots and the advisor's findings of a profile",
                        description="Analyse one profile: wall time, per-device breakdown, peak memory, hotspots "
                                    "and the advisor's findings with estimated gains. --json prints DESIGN.md's "
                                    "object {profile, summary, hotspots, findings} (plus metrics and track_record "
                                    "when present). When the profile lives in a store with a gain track record, "
                                    "the estimates are calibrated by it (the raw estimate stays in the evidence).")
    an.add_argument("profile", help="profile directory, importable trace/folder, or a name in the store")
    an.add_argument("--json", action="store_true", help="print one JSON object")
    an.add_argument("--top", type=int, default=20, help="hotspots to show (default 20; --json: 50)")
    an.add_argument("--no-calibrate", dest="calibrate", action="store_false",
                    help="show the advisor's raw estimates, not calibrated by the track record")
    an.add_argument("--store", default=None, help=_STORE_HELP)

    cl = sub.add_parser("cluster", help="cross-rank analysis of a group of ranks: per-rank table, stragglers, "
                                        "collective skew, comm wait",
                        description="Analyse a multi-rank group across its ranks: per rank the figures of analyze for "
                                    "its busiest device plus comm wait (time in a collective before the last rank "
                                    "arrived) and step p50; stragglers by a robust z-score with the reason; each "
                                    "collective's arrival skew and last-arriving rank; findings. --json prints "
                                    "DESIGN.md's object {group, ranks, stragglers, collectives, findings}. The "
                                    "per-rank work runs here, one rank at a time, with the embedded DuckDB engine "
                                    "for the cross-rank part; --scheduler runs it on an existing Dask cluster.")
    cl.add_argument("group", help="a stored group (NAME or its directory) or a folder of ranks to import")
    cl.add_argument("--json", action="store_true", help="print one JSON object")
    cl.add_argument("--scheduler", metavar="ADDRESS", default=None,
                    help="run the per-rank work on the Dask cluster at ADDRESS (tcp://HOST:PORT); the workers read "
                         "the group's files, so they must see the same path")
    cl.add_argument("--store", default=None, help="store directory for GROUP names (default: $CANN_NB_DIR or "
                                                  "./profile_results)")

    cp = sub.add_parser("compare", help="compare two profiles: per-op deltas, buckets, end-to-end, memory, findings",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Compare profile A (base, before) with B (new, after).\n\n"
                                    "Direction: delta = B - A (positive = slower / larger), delta % = 100 * delta / A, "
                                    "ratio = B / A.\nOps are aligned by name, by name+shapes and by module; each is "
                                    "added, removed, slower, faster or unchanged.\nWith at least 2 recorded steps on "
                                    "both sides (--repeat N, cann_nb.step()), a change counts only when a two-sided "
                                    "test on the\nper-step samples gives p < --alpha (Welch's t-test by default); "
                                    "without steps significance is unknown and says so.\nAn op is slower/faster only "
                                    "when |delta| >= --min-effect of its base time and >= 0.1% of A's end-to-end time.\n"
                                    "Resolved findings are recorded in A's store (the advisor's gain track record).")
    cp.add_argument("a", metavar="A", help="the base profile (before): directory, trace, or name in the store")
    cp.add_argument("b", metavar="B", help="the new profile (after)")
    cp.add_argument("--json", action="store_true", help="print one JSON object (every op of every view)")
    cp.add_argument("--by", choices=("name", "name+shapes", "module"), default="name",
                    help="the op view for the text tables (default name)")
    cp.add_argument("--top", type=int, default=10, help="rows per bucket in the text tables (default 10)")
    cp.add_argument("--test", choices=("welch", "mannwhitney"), default="welch",
                    help="significance test on per-step samples (default welch)")
    cp.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    cp.add_argument("--min-effect", default="5%", help="smallest change of an op reported (default 5%%)")
    cp.add_argument("--no-findings", dest="findings", action="store_false", help="skip the advisor (faster)")
    cp.add_argument("--no-record", dest="record", action="store_false",
                    help="do not add resolved findings to the store's gain track record")
    cp.add_argument("--store", default=None, help=_STORE_HELP)

    ck = sub.add_parser("check", help="gate a CI job: exit 1 when a profile breaches a time/regression/memory budget",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description=_check_description())
    ck.add_argument("--file", "-f", required=True, metavar="PROFILE_OR_DIR",
                    help="profile directory, store directory (every profile in it), group, importable trace, "
                         "or a name in the store (NAME, NAME@k, GROUP, GROUP/rank=N)")
    ck.add_argument("--metric", "-m", action="append", default=None, metavar="METRIC",
                    help="e2e (default), step_p50, step_p99, op:NAME, or a counter metric; repeatable")
    ck.add_argument("--threshold", "-t", action="append", default=None, metavar="[METRIC=]LIMIT",
                    help="value <= LIMIT, e.g. 200ms or step_p50=50ms; repeatable")
    ck.add_argument("--baseline", "-b", default=None, metavar="PROFILE", help="profile to compare with")
    ck.add_argument("--max-regression", default=None, metavar="R",
                    help="largest allowed increase over --baseline: 10%% or a time such as 5ms")
    ck.add_argument("--max-memory", action="append", default=None, metavar="[DEV=]SIZE",
                    help="peak memory limit, e.g. 2GB (allocator devices) or host:rss=3GB; repeatable")
    ck.add_argument("--alpha", type=float, default=0.05, help="significance level for --baseline (default 0.05)")
    ck.add_argument("--test", choices=("welch", "mannwhitney"), default="welch",
                    help="significance test for --baseline (default welch)")
    ck.add_argument("--json", action="store_true", help="print the results as one JSON object instead of the table")
    ck.add_argument("--junit", default=None, metavar="FILE", help="also write JUnit XML to FILE")
    ck.add_argument("--store", default=None, help="store directory for --file and --baseline names "
                                                  "(default: $CANN_NB_DIR or ./profile_results)")

    rp = sub.add_parser("report", help="write a self-contained HTML report of a profile (or of a comparison)",
                        description="Write one self-contained HTML file (no network needed to open it). With "
                                    "--baseline, the report covers the comparison baseline -> PROFILE.")
    rp.add_argument("profile", help="profile directory, importable trace/folder, or a name in the store; a group "
                                    "of ranks (stored, or a folder of ranks) gives the cluster report")
    rp.add_argument("-o", "--output", default=None, metavar="FILE.html", help="output file (default: NAME.html)")
    rp.add_argument("--against", "--baseline", dest="baseline", default=None, metavar="PROFILE",
                    help="compare with this profile (the before side)")
    rp.add_argument("--title", default=None, help="the report's title (default: the profile's name)")
    rp.add_argument("--store", default=None, help=_STORE_HELP)

    from ..monitor import report_cli

    mr = sub.add_parser("monitor-report", help="summarise stored continuous-monitoring windows",
                        description=report_cli.DESCRIPTION + " Exit codes: 0 success; 1 with --fail-on-anomaly "
                                    "when the range holds an anomaly; 2 bad input.")
    report_cli.add_arguments(mr)
    return p


def _add_run_options(parser: argparse.ArgumentParser, model: bool = True) -> None:
    """``run``'s own options: on its subcommand, and again for what follows the script (there without
    ``--model``: after the script, a ``--model`` is the script's own, as in many training scripts)."""
    for names, kwargs in flags.PROFILE_FLAGS:
        parser.add_argument(*names, **kwargs)
    parser.add_argument("--skip-steps", type=int, default=0, metavar="N",
                        help="schedule: drop the first N steps (warm-up iterations) from the profile; the profile "
                             "then starts at step N (default 0). Steps come from cann_nb.step() and --repeat")
    parser.add_argument("--quiet", action="store_true", help="print only where the profile went")
    if model:
        parser.add_argument("--model", metavar="SCRIPT", default=None,
                            help="the script to run, as CANN Profiler's command line writes it (the same as SCRIPT)")


def _options_of(parser: argparse.ArgumentParser) -> list[str]:
    return [o for action in parser._actions for o in action.option_strings if o.startswith("--")]


def _misspelt(option: str, known: list[str]) -> str | None:
    """The option of ``known`` that ``option`` (``--ouput``, ``--ouput=DIR``) looks like a typo of."""
    word = option.split("=", 1)[0]
    if not word.startswith("--") or word in known:
        return None
    # close, and about as long: a script's own --output-dir or --interval-ms is not a typo of ours
    close = [k for k in difflib.get_close_matches(word, known, n=3, cutoff=0.82) if abs(len(k) - len(word)) <= 2]
    return close[0] if close else None


def _unknown_options_error(parser, unknown: list[str], where: str = "") -> str:
    known = _options_of(parser)
    parts = []
    for option in unknown:
        guess = _misspelt(option, known)
        parts.append(f"{option} (did you mean {guess}?)" if guess else option)
    return f"unrecognized arguments{where}: {' '.join(parts)}"


def _model_as_script(argv: list[str], run: argparse.ArgumentParser) -> list[str]:
    """``run OPTIONS --model SCRIPT rest`` -> ``run OPTIONS SCRIPT rest``: what follows the script is
    the script's, whichever way the script was given. A ``--model`` after the script is the script's."""
    with_value = {o for a in run._actions for o in a.option_strings if a.nargs != 0 and o != "--model"}
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--model" and i + 1 < len(argv):
            return argv[:i] + [argv[i + 1]] + argv[i + 2:]
        if arg.startswith("--model="):
            return argv[:i] + [arg.split("=", 1)[1]] + argv[i + 1:]
        if not arg.startswith("-"):
            return argv     # the script came first
        takes_value = "=" not in arg and (arg in with_value or (
            arg.startswith("--") and len([o for o in with_value if o.startswith(arg)]) == 1))  # --out: --output
        i += 2 if takes_value else 1
    return argv


def _split_run_args(args, parser: argparse.ArgumentParser) -> list[str]:
    """The arguments after the script: cann-nb's own options there are applied to ``args``; the rest
    goes to the script, unless it looks like a misspelling of one of cann-nb's (then an error)."""
    own = argparse.ArgumentParser(prog="cann-nb run", add_help=False)
    _add_run_options(own, model=False)
    _, rest = own.parse_known_args(args.script_args, namespace=args)
    known = _options_of(own)
    typos = [(arg, guess) for arg in rest if (guess := _misspelt(arg, known))]
    if typos:
        arg, guess = typos[0]
        parser.error(f"{arg}: did you mean {guess}? (an option of the script's own that looks like it goes "
                     f"after '--')")
    return rest


def _check_description() -> str:
    from . import check

    doc = check.__doc__.split("\n", 2)[2]
    return "Check profiles against budgets.\n\n" + doc.replace("``", "")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    ours, script_args = argv, []
    if "--" in argv:
        cut = argv.index("--")
        ours, script_args = argv[:cut], argv[cut + 1:]
    if ours[:1] == ["run"]:
        ours = _model_as_script(ours, _subparser(parser, "run"))
    try:
        args, unknown = parser.parse_known_args(ours)
        command = _subparser(parser, args.command)
        if unknown:  # for run: before the script (what follows it is script_args)
            command.error(_unknown_options_error(command, unknown, " before the script" if args.command == "run"
                                                 else ""))
        if args.command == "run":
            if not args.script:
                command.error("give the script to profile: cann-nb run SCRIPT, or cann-nb run --model SCRIPT")
            script_args = _split_run_args(args, command) + script_args
    except SystemExit as exc:  # argparse: 0 for --help, 2 for usage errors
        return int(exc.code or 0)
    try:
        if args.command == "run":
            return _cmd_run(args, script_args)
        handler = {"list": _cmd_list, "import": _cmd_import, "analyze": _cmd_analyze, "cluster": _cmd_cluster,
                   "compare": _cmd_compare,
                   "check": _cmd_check, "report": _cmd_report, "monitor-report": _cmd_monitor_report}[args.command]
        return handler(args)
    except (flags.FlagError, CannNbError) as exc:
        print(f"cann-nb {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `cann-nb ... | head`
        return 0
    except KeyboardInterrupt:  # one line, not a traceback; a write in progress left the store unchanged
        print(f"cann-nb {args.command}: interrupted; nothing half-written was left in the store", file=sys.stderr)
        return 130
    except Exception as exc:  # a crash must not read as "budget breached" (1): report it, exit 2
        import traceback

        traceback.print_exc()
        print(f"cann-nb {args.command}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


STORE_FAILED = 3   # exit code: the profile could not be stored (distinct from bad input, 2)


def _stored_line(profile, where) -> str:
    version = profile.meta.get("version")
    return f"stored: {where}" + (f" (version {version})" if isinstance(version, int) and version > 1 else "")


def _keep_elsewhere(profile) -> str:
    """Where an unstorable profile can still be found: a store in a fresh temp directory, if that works."""
    import tempfile

    from ..errors import StoreError
    from ..store import Session

    try:
        fallback = Session(tempfile.mkdtemp(prefix="cann_nb-unstored-"))
        return f"the profile was written to {fallback.path(fallback.add(profile))} instead"
    except (OSError, StoreError) as exc:
        return f"it could not be written anywhere else either ({exc})"


def _cmd_run(args, script_args) -> int:
    from pathlib import Path

    from ..collect.runner import profile_script
    from ..errors import StoreError
    from ..store import Session

    flags.check(args)
    if args.skip_steps < 0:
        raise flags.FlagError("--skip-steps must be 0 or more")
    if not Path(args.script).is_file():
        print(f"cann-nb run: no such script: {args.script}", file=sys.stderr)
        return 2
    profile, code = profile_script(args.script, script_args, args)
    schedule_error = None
    if args.skip_steps:
        from ..collect.schedule import ScheduleError, skip_steps

        try:
            profile = skip_steps(profile, args.skip_steps)
        except ScheduleError as exc:  # keep what was collected, untrimmed, and say why
            schedule_error = str(exc)
            profile.meta["schedule"] = {"skipped_steps": 0, "error": schedule_error}
    store = Session(args.output)
    try:
        where = store.path(store.add(profile))
    except StoreError as exc:  # the run's data is not lost: the summary, and where it went instead
        if not args.quiet:
            print(profile.summary_text())
        print(f"cann-nb run: error: {exc}; {_keep_elsewhere(profile)}", file=sys.stderr)
        return STORE_FAILED
    profile.meta["stored_at"] = str(where)
    print(profile.summary_text() if not args.quiet else where)
    if schedule_error:
        print(f"cann-nb run: error: {schedule_error} (the profile was stored without skipping)", file=sys.stderr)
        return code or 2
    return code


def _cmd_list(args) -> int:
    from ..store import Session

    store = Session(args.dir)
    if args.repair:
        done = store.repair()   # each repair is also one stderr line of the store's
        print(f"repaired {len(done)} thing{'s' if len(done) != 1 else ''} in {store.root}" if done
              else f"nothing to repair in {store.root}")
    table = store.list(versions=args.versions)
    print(f"no profiles in {store.root}" if table.empty else _list_text(table))
    return 0


def _list_text(table) -> str:
    """Session.list as a text table: times through formatting.ns (not 3324.905446), unknowns '-', and
    the ranks column only when a group is listed (not a column of NaN)."""
    import pandas as pd

    from .. import formatting as F

    def cell(value, fmt=str) -> str:
        missing = value is None or value is pd.NA or value == "" or (isinstance(value, float) and value != value)
        return "-" if missing else fmt(value)

    columns = ["name", "version", "status", "created", "wall", "events", "ranks", "source", "path"]
    if table["ranks"].isna().all():
        columns.remove("ranks")
    rows = []
    for r in table.to_dict("records"):
        r["wall"] = r["wall_ms"] * 1e6 if r["wall_ms"] == r["wall_ms"] else None
        rows.append([cell(r["wall"], F.ns) if c == "wall" else cell(r[c], lambda v: f"{v:,}")
                     if c in ("events", "ranks") else cell(r[c]) for c in columns])
    right = {columns.index(c) for c in ("version", "wall", "events", "ranks") if c in columns}
    return F.table(rows, columns, right=right, indent="")


def _cmd_import(args) -> int:
    from ..errors import StoreError
    from ..ingest.load import import_into_store
    from ..store import ProfileGroup, Session

    store = Session(args.output)
    try:
        obj = import_into_store(args.path, store, args.name, workers=args.workers, progress=not args.quiet)
    except StoreError as exc:  # the trace itself is untouched: importing again is the way back
        print(f"cann-nb import: error: {exc}", file=sys.stderr)
        return STORE_FAILED
    where = store.locate(obj.name) or store.path(obj.name)
    if args.quiet:
        print(where)
    elif isinstance(obj, ProfileGroup):   # a group's summary has no stored line of its own
        print(obj.summary_text() + f"\n  {_stored_line(obj, where)}")
    else:
        print(obj.summary_text())         # its stored line says where (and which version)
    return 0


def _cmd_analyze(args) -> int:
    from .. import formatting as F
    from ..analyze import calibration as track_record
    from ..analyze.api import analyze
    from ..analyze.finding import finding_lines
    from ..analyze.rules.coverage import skipped_note
    from ..errors import NotOneProfile
    from ..ingest.load import resolve, store_root
    from ..store import ProfileGroup

    if args.top < 1:
        raise flags.FlagError("--top must be at least 1")
    profile = resolve(args.profile, args.store, group_ok=True)
    if isinstance(profile, ProfileGroup):
        first = profile.ranks[0] if profile.ranks else 0
        raise NotOneProfile(f"{args.profile!r} is a group of {len(profile)} ranks: analyse it across ranks with "
                            f"`cann-nb cluster {args.profile}`, or one rank with `cann-nb analyze "
                            f"{args.profile.rstrip('/')}/rank={first}`")
    root = store_root(profile)
    out = analyze(profile, top_hotspots=max(args.top, 50) if args.json else args.top)
    if root is not None:
        if args.calibrate:
            out["findings"] = track_record.calibrate(out["findings"], root)
        acc = track_record.accuracy(root)
        if acc["records"]:
            out["track_record"] = acc
    if args.json:
        from ..analyze.api import json_safe

        print(json.dumps(json_safe(out), allow_nan=False))
        return 0
    print(profile.summary_text())
    s = out["summary"]
    if s["devices"]:
        rows = [[dev, F.ns(d["busy_ns"]), F.ns(d["compute_ns"]), F.ns(d["communication_ns"]), F.ns(d["memcpy_ns"]),
                 F.ns(d["idle_ns"])] for dev, d in s["devices"].items()]
        print("  time per device")
        print(F.table(rows, ["device", "busy", "compute", "communication", "memcpy", "idle"], right={1, 2, 3, 4, 5},
                      indent="    "))
    fs = out["findings"]
    print(f"  findings ({len(fs)}), largest estimated gain first")
    for i, f in enumerate(fs[: max(args.top, 10)], 1):   # whole: the advice is what the user came for
        cal = (f.get("evidence") or {}).get("calibration")
        print("\n".join(finding_lines(i, f, f", calibrated x{cal['factor']:.2f}" if cal else "")))
    skipped = skipped_note(out["profile"].get("analysis_skipped") or [])
    if skipped:
        print("  " + skipped)
    if "track_record" in out:
        print("  " + track_record.summary_text(root))
    return 0


def _cmd_cluster(args) -> int:
    from ..widgets.static import cluster_text
    from .cluster import cluster

    res = cluster(args.group, store=args.store, scheduler=args.scheduler)
    print(json.dumps(res.to_json(), allow_nan=False) if args.json else cluster_text(res))
    return 0


def _cmd_compare(args) -> int:
    from .check import parse_percent
    from .compare import compare

    if args.top < 1:
        raise flags.FlagError("--top must be at least 1")
    if not 0 < args.alpha < 1:
        raise flags.FlagError(f"--alpha {args.alpha}: must be between 0 and 1")
    min_effect = parse_percent(args.min_effect, "--min-effect")
    cmp = compare(args.a, args.b, test=args.test, alpha=args.alpha, min_effect_pct=min_effect,
                  with_findings=args.findings, store=args.store, record=args.record)
    if args.json:
        print(json.dumps(cmp.to_dict(), allow_nan=False))
    else:
        print(cmp.summary_text(top=args.top, by=args.by))
    return 0


def _cmd_check(args) -> int:
    from .check import check

    result = check(args.file, metrics=args.metric, thresholds=args.threshold, baseline=args.baseline,
                   max_regression=args.max_regression, max_memory=args.max_memory, alpha=args.alpha, test=args.test,
                   store=args.store)
    if args.junit:
        result.write_junit(args.junit)
    print(result.to_json() if args.json else result.text())
    return result.exit_code


def _cmd_report(args) -> int:
    from pathlib import Path

    from ..ingest.load import resolve
    from ..report import write_report
    from .cluster import cluster, names_group

    if names_group(args.profile, args.store) and not args.baseline:   # a group of ranks: the cluster report
        res = cluster(args.profile, store=args.store)
        out = Path(args.output or f"{res.group.get('name') or 'cluster'}.html")
        print(write_report(res, out, title=args.title))
        return 0
    profile = resolve(args.profile, args.store)
    base = resolve(args.baseline, args.store) if args.baseline else None
    out = Path(args.output or f"{profile.name or 'report'}.html")
    print(write_report(profile, out, against=base, title=args.title))
    return 0


def _cmd_monitor_report(args) -> int:
    from ..monitor import report_cli

    return report_cli.run(args)
