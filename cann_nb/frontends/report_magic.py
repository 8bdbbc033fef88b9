"""``%cann_report [NAME] -o report.html [--against BASE]``: the line magic's work (magic.py only declares it).

NAME is a Profile held in a notebook variable, a name in the runtime's store (NAME, NAME@k, as
``%cann_list`` shows them), or a path; without NAME, the profile of the last ``%%cann_profile`` cell.
"""

from __future__ import annotations

from pathlib import Path

from IPython.core.error import UsageError


def _pick(runtime, shell, ref: str | None, store_dir):
    """The last profile, a Profile held in a notebook variable, else what the resolver makes of ``ref``."""
    from ..errors import CannNbError
    from ..ingest.load import resolve
    from ..model import Profile

    if not ref:
        last = getattr(runtime, "last", None)
        if isinstance(last, Profile):
            return last
        raise UsageError("%cann_report: no profile yet in this session; give a NAME from %cann_list or a path")
    ref = ref.strip().strip("'\"")
    held = shell.user_ns.get(ref) if ref.isidentifier() else None
    if isinstance(held, Profile):
        return held
    try:
        return resolve(ref, runtime.store(store_dir))
    except CannNbError as exc:
        raise UsageError(str(exc)) from None


def run(runtime, shell, args) -> Path:
    """Write the report the parsed magic arguments ask for; print where it went; return its path."""
    from ..report.build import write_report

    profile = _pick(runtime, shell, args.name, args.store)
    baseline = _pick(runtime, shell, args.against, args.store) if args.against else None
    out = Path(args.output or f"{profile.name or 'report'}.html")
    path = write_report(profile, out, against=baseline, title=args.title)
    size = path.stat().st_size
    what = f"{profile.name!r}" + (f" vs {baseline.name!r}" if baseline is not None else "")
    print(f"cann_nb: report of {what} written to {path} ({size / 2**20:.1f} MiB, opens offline in a browser)")
    return path
