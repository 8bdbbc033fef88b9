"""``cann_nb.cluster``: what every front end calls to analyse a group of ranks a user named.

``analyze.cluster.cluster_analysis`` is pure (a ProfileGroup in, a ClusterResult out). This resolves what
was typed (a stored group ``NAME``, its directory, or a folder of ranks to import; see
``ingest.load.resolve``) and refuses one profile with a pointer to ``analyze``. ``cann_nb.cluster``,
``cann-nb cluster`` and ``%cann_cluster`` all come here.
"""

from __future__ import annotations

import os

from ..analyze.cluster import ClusterResult, cluster_analysis
from ..errors import NotOneProfile
from ..ingest.load import resolve
from ..store import ProfileGroup


def cluster(group, *, store=None, scheduler=None) -> ClusterResult:
    """The cross-rank analysis of ``group``: a ProfileGroup, a stored group's name in ``store`` (default
    $CANN_NB_DIR or ./profile_results) or directory, or a folder of ranks (imported in memory first).
    ``scheduler``: a Dask scheduler address (``tcp://HOST:PORT``) to run the per-rank work on."""
    got = group if isinstance(group, ProfileGroup) else resolve(group, store, group_ok=True)
    if not isinstance(got, ProfileGroup):
        typed = os.fspath(group) if isinstance(group, (str, os.PathLike)) else got.name
        raise NotOneProfile(f"{typed!r} is one profile, not a group of ranks: analyse it with "
                            f"`cann-nb analyze {typed}` (cluster needs a multi-rank group, e.g. from "
                            "`cann-nb import FOLDER_OF_RANKS`)")
    if not got.meta.get("name") and isinstance(group, (str, os.PathLike)):
        got.meta["name"] = os.path.basename(os.path.normpath(os.fspath(group)))
    return cluster_analysis(got, scheduler=scheduler)
