"""``cann_nb.cluster``: what every front end calls to analyse a group of ranks a user named.

``analyze.cluster.cluster_analysis`` is pure (a ProfileGroup in, a ClusterResult out). This resolves what
was typed (a stored group ``NAME``, its directory, or a folder of ranks to import; see
``ingest.load.resolve``) and refuses one profile with a pointer to ``analyze``. ``cann_nb.cluster``,
``cann-nb cluster``, ``%cann_cluster`` and the cluster report all come here.

A folder of ranks not yet stored is imported into the store first (``cann-nb import``'s streamed path:
one rank in memory at a time), saying so on stderr, so any rank count fits and the view can open a
rank's timeline from the stored group.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..analyze.cluster import ClusterResult, cluster_analysis
from ..errors import NotOneProfile
from ..ingest.load import default_name, import_into_store, resolve
from ..store import ProfileGroup, Session, is_group_dir, is_profile_dir


def cluster(group, *, store=None, scheduler=None) -> ClusterResult:
    """The cross-rank analysis of ``group``: a ProfileGroup, a stored group's name in ``store`` (default
    $CANN_NB_DIR or ./profile_results) or directory, or a folder of ranks (streamed into ``store`` first,
    said on stderr).
    ``scheduler``: a Dask scheduler address (``tcp://HOST:PORT``) to run the per-rank work on."""
    got = group if isinstance(group, ProfileGroup) else _stored_first(group, store)
    got = got if got is not None else resolve(group, store, group_ok=True)
    if not isinstance(got, ProfileGroup):
        typed = os.fspath(group) if isinstance(group, (str, os.PathLike)) else got.name
        raise NotOneProfile(f"{typed!r} is one profile, not a group of ranks: analyse it with "
                            f"`cann-nb analyze {typed}` (cluster needs a multi-rank group, e.g. from "
                            "`cann-nb import FOLDER_OF_RANKS`)")
    if not got.meta.get("name") and isinstance(group, (str, os.PathLike)):
        got.meta["name"] = os.path.basename(os.path.normpath(os.fspath(group)))
    return cluster_analysis(got, scheduler=scheduler)


def rank_folder(what) -> Path | None:
    """``what`` as a folder of two or more ranks to import (not a stored group or profile), else None."""
    if not isinstance(what, (str, os.PathLike)):
        return None
    path = Path(what).expanduser()
    if not path.is_dir() or is_group_dir(path) or is_profile_dir(path):
        return None
    from ..ingest.cluster import find_ranks

    return path if len(find_ranks(path)) >= 2 else None


def names_group(what, store=None) -> bool:
    """Whether ``what`` names a group of ranks (a ProfileGroup, a stored group's directory or name, a
    folder of ranks), without reading any rank."""
    if isinstance(what, ProfileGroup):
        return True
    if not isinstance(what, (str, os.PathLike)):
        return False
    path = Path(what).expanduser()
    if path.exists():
        return is_group_dir(path) or rank_folder(path) is not None
    session = store if isinstance(store, Session) else Session(store)
    found = session.locate(os.fspath(what)) if "/" not in os.fspath(what) else None
    return found is not None and is_group_dir(found)


def _stored_first(what, store) -> ProfileGroup | None:
    """A folder of ranks imported into the store (streamed), or None when ``what`` is not one."""
    folder = rank_folder(what)
    if folder is None:
        return None
    session = store if isinstance(store, Session) else Session(store)
    name = default_name(folder)
    print(f"cann_nb: importing the ranks of {folder} into {session.root} as {name!r} first (one rank in memory "
          f"at a time); next time: cann-nb cluster {name}", file=sys.stderr, flush=True)
    return import_into_store(folder, session, name)
