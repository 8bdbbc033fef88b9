"""Where the per-rank work runs: here, one rank at a time (the default), or on an existing Dask cluster.

Either way the ranks arrive as small ``RankSummary`` records, in any order, and are handed on at once;
a rank's events are read, summarised and let go before the next, so memory stays flat in the rank
count. Dask is imported only when a scheduler is given.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...errors import CannNbError
from .rank import RankSummary, summarise_held_rank, summarise_stored_rank

DASK_MISSING = ("--scheduler needs dask.distributed, which is not installed here: pip install 'dask[distributed]' "
                "(or run without --scheduler: the embedded engine needs no server)")


def rank_tasks(group) -> list[tuple]:
    """(function, argument, rank) per rank: a stored rank is read where it is summarised (a worker
    reads the Parquet itself); a rank held in memory is summarised as it is."""
    if group.directory is not None:
        root = group.directory.resolve()   # absolute: a worker's working directory is not ours
        return [(summarise_stored_rank, str(root / f"rank={r}"), int(r)) for r in group.ranks]
    return [(summarise_held_rank, group[r], int(r)) for r in group.ranks]


def summaries(group, scheduler=None) -> Iterator[RankSummary]:
    """Each rank's summary, computed here one at a time or on the Dask cluster at ``scheduler``
    (an address such as ``tcp://HOST:PORT``, or a ``distributed.Client``)."""
    tasks = rank_tasks(group)
    if scheduler is None:
        for fn, arg, rank in tasks:
            yield fn(arg, rank)
        return
    yield from _on_dask(tasks, scheduler)


def _on_dask(tasks, scheduler) -> Iterator[RankSummary]:
    try:
        from distributed import Client
    except ImportError as exc:
        raise CannNbError(DASK_MISSING) from exc
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, set_as_default=False, timeout="10s") if own else scheduler
    except (OSError, TimeoutError) as exc:
        raise CannNbError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
    try:
        futures = [client.submit(fn, arg, rank, pure=False, key=f"cann_nb-cluster-rank-{rank}-{id(tasks)}")
                   for fn, arg, rank in tasks]
        for fut in futures:   # in rank order; the workers run ahead
            summary = fut.result()
            fut.release()   # the worker can drop it: only its small summary comes back
            yield summary
    finally:
        if own:
            client.close()
