"""``cann_nb.load``: a Profile from a stored profile directory or any importable trace or folder.

Format detection: a cann_nb profile directory (meta.json), a stored group (group.json), an Ascend
folder or database, a Kineto/Chrome trace (.json, .json.gz), or a folder of ranks of either kind.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import TraceFormatError
from ..store import ProfileGroup, is_group_dir, is_profile_dir, read_profile_dir


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

    if is_ascend(path):
        profile = read_ascend(path)
    elif path.is_file() and path.name.lower().endswith((".json", ".json.gz", ".gz")):
        from .kineto import read_kineto

        profile = read_kineto(path)
    elif path.is_dir():
        from .cluster import kineto_files

        files = kineto_files(path)
        if len(files) != 1:
            raise TraceFormatError(path, expected="a folder with a profile: an Ascend *_ascend_pt/ms folder, "
                                                  "a PROF_* folder or Kineto *.json(.gz) traces",
                                   detail="found none" if not files else f"found {len(files)} traces")
        from .kineto import read_kineto

        profile = read_kineto(files[0])
    else:
        raise TraceFormatError(path, expected="a cann_nb profile directory, a Kineto/Chrome trace (.json, .json.gz) "
                                              "or an Ascend profiler folder/database")
    profile.meta.setdefault("name", "")
    if not profile.meta.get("name"):
        profile.meta["name"] = default_name(path)
    return profile


def default_name(path: Path) -> str:
    import re

    stem = path.name
    for suffix in (".gz", ".json", ".db"):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    return re.sub(r"[^A-Za-z0-9_.\-+=]", "_", stem).lstrip(".-") or "imported"
