"""The profiling flags, declared once for the %%cann_profile magic and the ``run`` command."""

from __future__ import annotations

from .. import collect
from .base import DEFAULT_INTERVAL_S, CollectOptions

# (flags, argparse keyword arguments), in help order
PROFILE_FLAGS = [
    (("-n", "--name"), dict(default=None, help="profile name (default: cell_N / the script's name); a reused "
                                               "name keeps the earlier profile as NAME@k")),
    (("-o", "--output"), dict(default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")),
    (("--repeat",), dict(type=int, default=1, help="run N times under the collectors, one step each (default 1)")),
    (("--warmup",), dict(type=int, default=0, help="run N times first without collecting (default 0)")),
    (("--collectors",), dict(default="auto", help="comma list of torch,host,python; default auto: torch+host "
                                                 "when the code uses torch, else python+host")),
    (("--memory",), dict(dest="memory", action="store_true", default=True, help="record allocations (default)")),
    (("--no-memory",), dict(dest="memory", action="store_false", help="do not record allocations")),
    (("--shapes",), dict(dest="shapes", action="store_true", default=True,
                         help="record input shapes and dtypes of ops (default: FLOPs, bytes and the roofline need them)")),
    (("--no-shapes",), dict(dest="shapes", action="store_false",
                            help="do not record shapes (lighter on many tiny ops; no efficiency figures)")),
    (("--stack",), dict(action="store_true", help="record Python call stacks (python function events)")),
    (("--flops",), dict(action="store_true", help="estimate FLOPs of matmul/conv ops (implies --shapes)")),
    (("--interval",), dict(type=float, default=DEFAULT_INTERVAL_S * 1000,
                           help=f"host sampling interval in ms (default {DEFAULT_INTERVAL_S * 1000:g})")),
]


class FlagError(ValueError):
    """A flag value is out of range; the magic turns it into UsageError, the CLI into exit code 2."""


def check(args) -> None:
    """Validate parsed flags in place; adds ``collector_names`` (None = auto)."""
    if args.repeat < 1:
        raise FlagError("--repeat must be at least 1")
    if args.warmup < 0:
        raise FlagError("--warmup must be 0 or more")
    if not args.interval > 0:
        raise FlagError("--interval must be a positive number of milliseconds")
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


def options(args) -> CollectOptions:
    return CollectOptions(memory=args.memory, shapes=args.shapes or args.flops, stack=args.stack,
                          flops=args.flops, interval_s=args.interval / 1000.0)
