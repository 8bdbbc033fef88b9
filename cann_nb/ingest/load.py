"""``cann_nb.load``: a Profile from a stored profile directory or any importable trace or folder.

Format detection: a cann_nb profile directory (meta.json), a stored group (group.json), an Ascend
folder or database, a Kineto/Chrome trace (.json, .json.gz), an XProf ``*.xplane.pb`` (TensorFlow/JAX)
or a logdir holding one, a MindSpore CPU profiler folder, or a folder of ranks of either kind.

``resolve(what, store)`` is the one resolver of what a user typed (a Profile, a path, ``NAME``,
``NAME@k``, ``GROUP/rank=N``): every front end and the report call it. ``import_into_store`` is
load-then-store, for ``cann-nb import`` and ``%cann_load``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import NotOneProfile, ProfileNotFound, TraceFormatError
from ..store import ProfileGroup, Session, is_group_dir, is_profile_dir, read_profile_dir


def load(path, name: str | None = None, workers: int | None = None, progress: bool = True):
    """A Profile, or a ProfileGroup (rank -> Profile) for a folder of ranks."""
    path = Path(path)
    if not path.exists():
        raise TraceFormatError(path, expected="an existing file or folder")
    if is_group_dir(path):
        return ProfileGroup(path)
    if path.is_dir() and not is_profile_dir(path):
        from .cluster import find_ranks, import_ranks

        ranks = find_ranks(path)
        if len(ranks) >= 2:
            profiles = import_ranks(ranks, workers=workers, progress=progress)
            world = max((p.meta.get("world_size") or 0) for p in profiles.values()) or len(ranks)
            for p in profiles.values():
                p.meta["world_size"] = world
            return ProfileGroup(profiles=profiles, meta={"name": name or path.name, "world_size": world,
                                                         "source": {"kind": "import", "path": str(path.resolve())}})
    profile = load_single(path)
    if name:
        profile.meta["name"] = name
    return profile


def load_single(path: Path):
    """One profile: a stored profile directory, an Ascend folder/database or a Kineto trace."""
    if path.is_dir() and is_profile_dir(path):
        return read_profile_dir(path)
    from .ascend import is_ascend, read_ascend
    from .mindspore_cpu import read_mindspore_cpu, run_folder
    from .xprof import SUFFIX as XPLANE, find_xplanes, read_xplane

    if run_folder(path) is not None:   # before is_ascend: a CPU MindSpore folder is named *_ascend_ms too
        profile = read_mindspore_cpu(path)
    elif path.is_file() and path.name.lower().endswith((XPLANE, XPLANE + ".gz")):
        profile = read_xplane(path)
    elif is_ascend(path):
        profile = read_ascend(path)
    elif path.is_file() and path.name.lower().endswith((".json", ".json.gz", ".gz")):
        from .xprof_json import looks_like_xprof_json, read_xprof_json

        if looks_like_xprof_json(path):   # XProf's trace viewer JSON: planes as processes
            profile = read_xprof_json(path)
        else:
            from .kineto import read_kineto

            profile = read_kineto(path)
    elif path.is_dir() and find_xplanes(path):   # a TensorBoard logdir or XProf run folder
        profile = read_xplane(path)
    elif path.is_dir():
        from .cluster import kineto_files

        files = kineto_files(path)
        if len(files) != 1:
            raise TraceFormatError(path, expected="a folder with a profile: an Ascend *_ascend_pt/ms folder, "
                                                  "a PROF_* folder, Kineto *.json(.gz) traces, an XProf "
                                                  "*.xplane.pb or a MindSpore profiler folder",
                                   detail="found none" if not files else f"found {len(files)} traces")
        from .kineto import read_kineto

        profile = read_kineto(files[0])
    else:
        raise TraceFormatError(path, expected="a cann_nb profile directory, a Kineto/Chrome trace (.json, .json.gz), "
                                              "an XProf *.xplane.pb, a MindSpore profiler folder "
                                              "or an Ascend profiler folder/database")
    profile.meta.setdefault("name", "")
    if not profile.meta.get("name"):
        profile.meta["name"] = default_name(path)
    return profile


def default_name(path: Path) -> str:
    import re

    stem = path.name
    for suffix in (".gz", ".json", ".db", ".xplane.pb"):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    return re.sub(r"[^A-Za-z0-9_.\-+=]", "_", stem).lstrip(".-") or "imported"


# -- what a user typed -> a profile -----------------------------------------------------------------
_RANK_RE = re.compile(r"^(?P<group>.+)/rank=(?P<rank>\d+)/?$")


def resolve(what, store=None, *, group_ok: bool = False):
    """The profile a user named: the one resolver behind every front end and the report.

    ``what``: a Profile (returned as is); a path (a profile directory, ``GROUP_DIR/rank=N``, any importable
    trace or folder); or a name in the store ``store`` (a Session or its directory; default $CANN_NB_DIR
    or ./profile_results): ``NAME``, ``NAME@k`` (an older version), ``GROUP/rank=N``. A path that exists
    wins over a name. A multi-rank group raises NotOneProfile naming ``GROUP/rank=N`` to give instead,
    unless ``group_ok`` (then the ProfileGroup is returned); a whole store directory raises it too.
    Nothing found raises ProfileNotFound, listing the store's names. A profile read from a store or a
    profile directory carries ``meta["stored_at"]``, which ``store_root`` reads.
    """
    from ..model import Profile

    if isinstance(what, Profile):
        return what
    if isinstance(what, ProfileGroup):
        return _one(what, what.name, group_ok)
    if not isinstance(what, (str, os.PathLike)):
        raise TypeError(f"cannot resolve a {type(what).__name__} to a profile: give a Profile, a path or a "
                        "name in the store")
    path = Path(what).expanduser()
    if path.exists():
        return _one(_load_path(path), str(what), group_ok)
    session = store if isinstance(store, Session) else Session(store)
    name = os.fspath(what)
    if _store_name(name) and name in session:
        got = session[name]
        if isinstance(got, Profile):
            got.meta["stored_at"] = os.path.abspath(session.locate(name) or session.path(name))  # NAME@k after a crash
        return _one(got, name, group_ok)
    rank = _RANK_RE.match(name)
    if rank:  # a rank the store has no directory for, or a rank of a folder of ranks to import
        return _rank_of(name, rank, session)
    raise ProfileNotFound(name, session.root, session.names(versions="@" in name))


def store_root(profile) -> Path | None:
    """The store directory ``profile`` lives in (from ``meta["stored_at"]``: ``STORE/NAME`` or
    ``STORE/GROUP/rank=N``), or None for a profile that was never stored."""
    at = (getattr(profile, "meta", None) or {}).get("stored_at")
    if not at:
        return None
    parent = Path(at).parent
    return parent.parent if is_group_dir(parent) else parent


def import_into_store(path, session: Session, name: str | None = None, *, workers: int | None = None,
                      progress: bool = True):
    """``load(path)`` and add it to ``session`` under ``name`` (default: the profile's own name, else
    the path's; made a safe directory name). A folder of ranks (or a stored group) becomes a group,
    streamed: each rank is read, written into the group and let go, so memory does not grow with the
    rank count; the group appears whole or not at all. Returns what was stored: the Profile (with
    ``meta["stored_at"]``) or the stored ProfileGroup."""
    streamed = _stream_group(Path(path), workers, progress)
    if streamed is not None:
        own_name, ranks, meta = streamed
        name = default_name(Path(name or own_name))
        return session[session.add_group(name, ranks, meta)]
    obj = load(path, workers=workers, progress=progress)
    name = default_name(Path(name or obj.name or os.fspath(path)))
    if isinstance(obj, ProfileGroup):
        return session[session.add_group(name, {r: obj[r] for r in obj.ranks}, obj.meta)]
    stored = session.add(obj, name)
    obj.meta["stored_at"] = str(session.path(stored))
    return obj


def _stream_group(path: Path, workers, progress):
    """(its name, a stream of (rank, Profile), the group's meta) when ``path`` is a folder of ranks or a
    stored group, else None. Nothing is read yet but the ranks' names."""
    if is_group_dir(path):
        group = ProfileGroup(path)
        meta = {k: v for k, v in group.meta.items() if k not in ("name", "version", "ranks", "counts")}
        return group.name, ((r, read_profile_dir(path / f"rank={r}")) for r in group.ranks), meta
    if not path.is_dir() or is_profile_dir(path):
        return None
    from .cluster import find_ranks, stream_ranks

    ranks = find_ranks(path)
    if len(ranks) < 2:
        return None
    meta = {"world_size": len(ranks), "source": {"kind": "import", "path": str(path.resolve())}}
    return path.name, stream_ranks(ranks, workers=workers, progress=progress, group_meta=meta), meta


def _load_path(path: Path):
    if path.is_dir() and not is_profile_dir(path) and not is_group_dir(path):
        names = Session(path).names()
        if names:
            raise NotOneProfile(f"{str(path)!r} is a store with {len(names)} profile{'s' if len(names) > 1 else ''} "
                                f"({', '.join(names[:8])}{', ...' if len(names) > 8 else ''}); give one of them, "
                                f"e.g. {path / names[0]}")
    got = load(path, progress=False)
    if is_profile_dir(path):
        got.meta["stored_at"] = os.path.abspath(path)
    return got


def _store_name(name: str) -> bool:
    """A name that can only mean a directory inside the store (no absolute path, no '..', no dot files)."""
    return bool(name) and all(part and not part.startswith(".") for part in name.split("/"))


def _one(got, typed: str, group_ok: bool):
    if isinstance(got, ProfileGroup) and not group_ok:
        first = got.ranks[0] if got.ranks else 0
        raise NotOneProfile(f"{typed!r} is a group of {len(got)} ranks; give one rank, e.g. "
                            f"{typed.rstrip('/')}/rank={first}")
    return got


def _rank_of(typed: str, match, session: Session):
    try:
        group = resolve(match["group"], session, group_ok=True)
    except ProfileNotFound:
        raise ProfileNotFound(typed, session.root, session.names()) from None
    if not isinstance(group, ProfileGroup):
        raise ProfileNotFound(typed, detail=f"no profile {typed!r}: {match['group']!r} is one profile, not a "
                                            "group of ranks")
    rank = int(match["rank"])
    if rank not in group.ranks:
        raise ProfileNotFound(typed, detail=f"no profile {typed!r}: group {group.name!r} has no rank {rank} "
                                            f"(ranks: {', '.join(map(str, group.ranks)) or 'none'})")
    return group[rank]
