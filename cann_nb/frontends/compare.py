"""``cann_nb.compare``: what every front end calls to compare two profiles a user named.

``analyze.comparison.compare`` is pure (two Profiles in, a Comparison out). This adds what a user's
call needs around it: resolving both sides (Profiles, paths, ``NAME``, ``NAME@k``, ``GROUP/rank=N``;
see ``ingest.load.resolve``) and writing the realised gain of resolved findings to the track record
of the store the base profile lives in (``analyze/calibration.py``). ``cann_nb.compare``,
``Profiler.compare``, ``cann-nb compare`` and ``%cann_compare`` all come here.
"""

from __future__ import annotations

from ..analyze import comparison
from ..ingest.load import resolve, store_root


def compare(base, new, *, store=None, record: bool | None = None, **options) -> comparison.Comparison:
    """Compare ``base`` (before) with ``new`` (after): Profiles, paths, or names in ``store`` (default
    $CANN_NB_DIR or ./profile_results). ``options`` go to ``analyze.comparison.compare`` (views, test,
    alpha, min_effect_pct, min_share_pct, with_findings). ``record``: add resolved findings to the track
    record of the base's store (default: when the base lives in a store)."""
    base, new = resolve(base, store), resolve(new, store)
    cmp = comparison.compare(base, new, **options)
    root = store_root(base)
    if record is None:
        record = root is not None
    if record and root is not None:
        add_to_track_record(cmp, root)
    return cmp


def add_to_track_record(cmp: comparison.Comparison, root) -> None:
    """Record the comparison's resolved findings in the track record at ``root`` (into ``cmp.recorded``),
    unless the run got slower overall: then the change was no fix of them, and a note says so."""
    if not cmp.findings["resolved"]:
        return
    if cmp.e2e["verdict"] == "slower":
        cmp.notes.append("resolved findings not added to the track record: the run got slower overall, so the "
                         "change was not a fix of them")
        return
    from ..analyze import calibration as track_record

    try:
        cmp.recorded = track_record.record(root, cmp)
    except OSError as exc:
        cmp.notes.append(f"track record not written: {exc}")
