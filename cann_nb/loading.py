"""``cann_nb.load``: a Profile from a stored profile directory or any importable trace or folder."""

from __future__ import annotations

from pathlib import Path

from .errors import TraceFormatError
from .store import is_profile_dir, read_profile_dir


def load(path, name: str | None = None):
    path = Path(path)
    if not path.exists():
        raise TraceFormatError(path, expected="an existing file or folder")
    if path.is_dir() and is_profile_dir(path):
        profile = read_profile_dir(path)
    else:
        profile = _import(path)
    if name:
        profile.meta["name"] = name
    return profile


def _import(path: Path):
    from .ingest.ascend import is_ascend, read_ascend

    if is_ascend(path):
        return read_ascend(path)
    lower = path.name.lower()
    if path.is_file() and (lower.endswith(".json") or lower.endswith(".json.gz") or lower.endswith(".gz")):
        from .ingest.kineto import read_kineto

        return read_kineto(path)
    raise TraceFormatError(path, expected="a cann_nb profile directory, a Kineto/Chrome trace (.json, .json.gz) "
                                          "or an Ascend profiler folder/database")
