"""The profiling flags, declared once for the %%cann_profile magic and the ``run`` command, and the
profiling modes ($PROFILER_MODE, the CANN Profiler's switch), read here only, for the magic, the
``run`` command and the Python API alike."""

from __future__ import annotations

import os

from .. import collect
from ..errors import InputError
from .base import DEFAULT_INTERVAL_S, CollectOptions

# what each mode turns on; flags given explicitly (--no-shapes, Profiler(shapes=False)) win over it
MODES = {
    "basic": dict(memory=False, shapes=False, stack=False, flops=False),
    "detailed": dict(memory=True, shapes=True, stack=True, flops=True),
    "default": {},
}
MODE_ENV = "PROFILER_MODE"
CHOICES = ("memory", "shapes", "stack", "flops")   # the on/off flags a mode sets


def resolve_mode(mode: str | None = None) -> str:
    """``mode`` if given, else $PROFILER_MODE, else "default"; raises ValueError on an unknown mode."""
    chosen = mode if mode is not None else (os.environ.get(MODE_ENV) or "default")
    chosen = str(chosen).strip().lower()
    if chosen not in MODES:
        source = "mode=" if mode is not None else f"${MODE_ENV}="
        raise ValueError(f"{source}{chosen!r} is not a profiling mode; use basic or detailed")
    return chosen


def choose(mode: str, explicit: dict) -> dict:
    """The on/off choices: the explicit ones (not None), else the mode's, else CollectOptions' defaults.
    FLOP estimates need shapes: flops turns shapes on unless shapes=False was explicit."""
    base = CollectOptions()
    out = {k: getattr(base, k) for k in CHOICES}
    out.update(MODES[mode])
    out.update({k: bool(v) for k, v in explicit.items() if k in CHOICES and v is not None})
    if explicit.get("shapes") is False and explicit.get("flops") is None:
        out["flops"] = False
    if out["flops"]:
        out["shapes"] = True
    return out

# (flags, argparse keyword arguments), in help order
PROFILE_FLAGS = [
    (("-n", "--name"), dict(default=None, help="profile name (default: cell_N / the script's name); a reused "
                                               "name keeps the earlier profile as NAME@k")),
    (("-o", "--output"), dict(default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")),
    (("--repeat",), dict(type=int, default=1, help="run N times under the collectors, one step each (default 1)")),
    (("--warmup",), dict(type=int, default=0, help="run N times first without collecting (default 0)")),
    (("--collectors",), dict(default="auto", help="comma list of torch,tensorflow,mindspore,host,python; default "
                                                 "auto: the framework the code uses (torch, tensorflow, mindspore)"
                                                 "+host, else python+host")),
    (("--memory",), dict(dest="memory", action="store_true", default=None, help="record allocations (default)")),
    (("--no-memory",), dict(dest="memory", action="store_false", help="do not record allocations")),
    (("--shapes",), dict(dest="shapes", action="store_true", default=None,
                         help="record input shapes and dtypes of ops (default: FLOPs, bytes and the roofline need them)")),
    (("--no-shapes",), dict(dest="shapes", action="store_false",
                            help="do not record shapes (lighter on many tiny ops; no efficiency figures)")),
    (("--stack",), dict(action="store_true", default=None, help="record Python call stacks (python function events)")),
    (("--flops",), dict(action="store_true", default=None,
                        help="estimate FLOPs of matmul/conv ops (implies --shapes)")),
    (("--interval",), dict(type=float, default=DEFAULT_INTERVAL_S * 1000,
                           help=f"host sampling interval in ms (default {DEFAULT_INTERVAL_S * 1000:g})")),
    (("--max-memory",), dict(default=None, metavar="SIZE",
                             help="memory the collection may add, e.g. 4GB or 512MiB (default: 1/8 of the available "
                                  "memory, 256 MiB-8 GiB); past it, ops are no longer recorded and the profile says so")),
    (("--max-events",), dict(type=int, default=None, metavar="N",
                             help="record at most about N torch ops (and keep at most N events per collector)")),
]


class FlagError(ValueError):
    """A flag value is out of range; the magic turns it into UsageError, the CLI into exit code 2."""


def check(args) -> None:
    """Validate parsed flags in place; adds ``collector_names`` (None = auto) and ``mode`` ($PROFILER_MODE),
    and fills the on/off flags not given from the mode."""
    try:
        args.mode = resolve_mode(None)
    except ValueError as exc:
        raise FlagError(str(exc)) from None
    for key, value in choose(args.mode, {k: getattr(args, k, None) for k in CHOICES}).items():
        setattr(args, key, value)
    if args.repeat < 1:
        raise FlagError("--repeat must be at least 1")
    if args.warmup < 0:
        raise FlagError("--warmup must be 0 or more")
    if not args.interval > 0:
        raise FlagError("--interval must be a positive number of milliseconds")
    _check_budget(args)
    if args.collectors in (None, "", "auto"):
        args.collector_names = None
    else:
        names = tuple(n.strip() for n in args.collectors.split(",") if n.strip())
        unknown = [n for n in names if n not in collect.names()]
        if unknown or not names:
            raise FlagError(f"unknown collector(s) {', '.join(unknown) or '(none)'}; "
                            f"choose from {', '.join(collect.names())}")
        args.collector_names = names
    if args.name is not None:
        from ..store import check_name

        try:
            check_name(args.name)
        except ValueError as exc:
            raise FlagError(str(exc)) from None


def _check_budget(args) -> None:
    """--max-memory as bytes (decimal kB/MB/GB or binary KiB/MiB/GiB, as ``check`` reads sizes)."""
    raw = getattr(args, "max_memory", None)
    if isinstance(raw, str):
        from ..formatting import parse_size   # the one reader of sizes

        try:
            args.max_memory = int(parse_size(raw, "--max-memory"))
        except InputError as exc:
            raise FlagError(str(exc)) from None
        if args.max_memory < 1:
            raise FlagError("--max-memory must be a positive size, e.g. 4GB")
    if getattr(args, "max_events", None) is not None and args.max_events < 1:
        raise FlagError("--max-events must be at least 1")


def options(args) -> CollectOptions:
    chosen = choose(getattr(args, "mode", None) or resolve_mode(None), {k: getattr(args, k, None) for k in CHOICES})
    budget = {k: getattr(args, k) for k in ("max_memory", "max_events") if getattr(args, k, None)}
    if budget.get("max_events"):   # one bound for every collector's events
        budget["buffer_events"] = budget["max_events"]
    return CollectOptions(interval_s=args.interval / 1000.0, **chosen, **budget)
