"""``python -m cann_nb monitor-report DIR``: summarise a range of stored monitoring windows.

Exit codes: 0 success; 1 with ``--fail-on-anomaly`` when the range holds an anomaly; 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import CannNbError

DESCRIPTION = ("Summarise stored continuous-monitoring windows: calls, latency percentiles (merged over the "
               "range), peak memory, top ops and the anomalies flagged against the rolling baseline.")


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("dir", help="a monitor directory (NAME.monitor/ with w000001/...) or an output directory "
                               "holding NAME.monitor/ directories")
    p.add_argument("--first", type=int, default=None, help="first window number of the range")
    p.add_argument("--last", type=int, default=None, help="last window number of the range")
    p.add_argument("--since", default=None, help="windows ending after this time: ISO 8601 or an age (30m, 2h, 1d)")
    p.add_argument("--until", default=None, help="windows starting before this time: ISO 8601 or an age")
    p.add_argument("--tail", type=int, default=None, help="only the last N windows of the range")
    p.add_argument("--json", action="store_true", help="print one JSON object per monitor directory")
    p.add_argument("--fail-on-anomaly", action="store_true", help="exit 1 when the range holds an anomaly")
    return p


def parser() -> argparse.ArgumentParser:
    return add_arguments(argparse.ArgumentParser(prog="cann-nb monitor-report", description=DESCRIPTION))


def run(args) -> int:
    from .report import load_windows, monitor_dirs, report_text, summarize
    from ..analyze.api import json_safe

    if args.tail is not None and args.tail < 0:
        raise CannNbError("--tail must be 0 or more")
    anomalies = 0
    for i, d in enumerate(monitor_dirs(args.dir)):
        table, summaries = load_windows(d, first=args.first, last=args.last, since=args.since, until=args.until,
                                        tail=args.tail)
        summary = summarize(summaries)
        anomalies += len(summary.get("anomalies", []))
        if args.json:
            rows = table.assign(start=table["start"].astype(str)).to_dict("records")
            print(json.dumps(json_safe({"directory": str(d), "summary": summary, "windows": rows}), allow_nan=False))
        else:
            if i:
                print()
            print(report_text(d, table, summary))
    return 1 if args.fail_on_anomaly and anomalies else 0


def monitor_report_main(argv=None) -> int:
    """Entry point for the ``monitor-report`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:   # argparse: 0 for --help, 2 for usage errors
        return int(exc.code or 0)
    try:
        return run(args)
    except CannNbError as exc:
        print(f"cann-nb monitor-report: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(monitor_report_main())
