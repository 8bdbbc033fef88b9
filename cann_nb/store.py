"""The session store: profiles by name, persisted as Parquet + JSON, readable without cann_nb.

On disk (``root`` = --output, $CANN_NB_DIR or ./profile_results)::

    root/NAME/meta.json  events.parquet  memory.parquet  counters.parquet   the latest version of NAME
    root/NAME@1/ ...                                                         older versions, kept
    root/GROUP/group.json  rank=0/<a profile dir>  rank=1/...               a multi-rank group

A group is partitioned by rank the Hive way, so a whole cluster is one scan for other tools, e.g.
DuckDB ``read_parquet('root/GROUP/*/events.parquet', hive_partitioning=1)`` gives a ``rank`` column.

A profile is written into ``root/.tmp-*`` and renamed into place, so a crash or a full disk never
leaves a half profile under a real name. Reusing a name keeps the earlier profile as ``NAME@k``
(k its version) rather than overwriting it: ``session["NAME"]`` is the latest, ``session["NAME@1"]``
the first.

``add(..., background=True)`` hands the write to the session's one writer thread (writes stay in
order) and returns at once: the notebook shows a profile while its files are written. Every read of
the session waits for pending writes first (``flush``), the magic flushes before its cell ends
(so whatever reads the directory next sees the files) and the interpreter flushes at exit.
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import re
import shutil
import sys
import threading
import uuid
import weakref
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import StoreError, TraceFormatError
from .model import TABLES, Profile

DEFAULT_DIR = "profile_results"
META_FILE = "meta.json"
GROUP_FILE = "group.json"
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-+=]{0,127}$")
_VERSIONED_RE = re.compile(r"^(?P<base>.+)@(?P<version>\d+)$")


def default_root() -> Path:
    return Path(os.environ.get("CANN_NB_DIR") or DEFAULT_DIR)


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name) or name.endswith("."):
        raise ValueError(
            f"invalid profile name {name!r}: use letters, digits and _ . - + = (at most 128, not starting "
            "with '.' or '-'); it becomes a directory name")
    return name


def is_profile_dir(path: Path) -> bool:
    return (Path(path) / META_FILE).is_file()


def is_group_dir(path: Path) -> bool:
    return (Path(path) / GROUP_FILE).is_file()


def _stored(path: Path) -> bool:
    return is_profile_dir(path) or is_group_dir(path)


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return None if np.isnan(obj) else float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (Path, pd.Timestamp)):
        return str(obj)
    if isinstance(obj, (set, tuple)):
        return list(obj)
    return repr(obj)


def write_profile_dir(profile: Profile, directory: Path, meta: dict | None = None) -> None:
    """Write one profile's files (and ``meta``, default its own) into an existing empty directory, fsynced."""
    for table in TABLES:
        df = getattr(profile, table)
        path = directory / f"{table}.parquet"
        df.to_parquet(path, engine="pyarrow", index=False, compression="zstd")
        _fsync(path)
    meta_path = directory / META_FILE
    with open(meta_path, "w", encoding="utf-8") as fh:
        json.dump(profile.meta if meta is None else meta, fh, default=_json_default, indent=1, allow_nan=False)
        fh.flush()
        os.fsync(fh.fileno())


def read_profile_dir(directory) -> Profile:
    """Read a profile directory written by ``write_profile_dir``."""
    directory = Path(directory)
    meta_path = directory / META_FILE
    try:
        with open(meta_path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except FileNotFoundError:
        raise TraceFormatError(directory, expected=f"a cann_nb profile directory with {META_FILE}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TraceFormatError(meta_path, where=str(getattr(exc, "pos", "")), expected="JSON",
                               detail=str(exc)) from None
    if not isinstance(meta, dict):
        raise TraceFormatError(meta_path, expected="a JSON object")
    tables = {}
    for table in TABLES:
        path = directory / f"{table}.parquet"
        if not path.exists():
            tables[table] = None
            continue
        try:
            tables[table] = pd.read_parquet(path, engine="pyarrow")
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise TraceFormatError(path, expected="a Parquet table", detail=f"{type(exc).__name__}: {exc}") from None
    try:
        return Profile(tables["events"], tables["memory"], tables["counters"], meta)
    except ValueError as exc:
        raise TraceFormatError(directory, expected="tables in cann_nb's schema", detail=str(exc)) from None


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Session(Mapping):
    """Every profile under one directory, by name. Profiles load lazily and are cached."""

    def __init__(self, root=None):
        self.root = Path(root) if root is not None else default_root()
        self._cache: dict[str, Profile] = {}
        self._queue: deque = deque()                      # background adds, written one at a time, in order
        self._writer: threading.Thread | None = None      # runs while the queue has work, then ends
        self._lock = threading.Lock()
        self.write_errors: list[str] = []                  # background writes that failed, as messages

    # -- reading -----------------------------------------------------------------------------
    def flush(self) -> None:
        """Wait until every background write to this directory has landed (or failed: see
        ``write_errors``), this Session's and those of other Sessions on the same root."""
        for other in list(_with_writes.values()):
            if other is not self and _same_dir(other.root, self.root):
                other._flush_own()
        self._flush_own()

    def _flush_own(self) -> None:
        # the writer ends as soon as its queue is empty (and a later add starts a new one)
        while (writer := self._writer) is not None and writer is not threading.current_thread():
            writer.join()

    def names(self, versions: bool = False) -> list[str]:
        """Stored names, oldest first; with versions=True also the ``NAME@k`` older versions."""
        self.flush()
        return self._names_on_disk(versions)

    def _names_on_disk(self, versions: bool) -> list[str]:
        if not self.root.is_dir():
            return []
        found = []
        for entry in self.root.iterdir():
            if entry.name.startswith(".") or not _stored(entry):
                continue
            if not versions and _VERSIONED_RE.match(entry.name):
                continue
            found.append((entry.stat().st_mtime, entry.name))
        return [n for _, n in sorted(found)]

    def path(self, name: str) -> Path:
        return self.root / name

    def __getitem__(self, name: str):
        """A Profile by name (``NAME``, ``NAME@k``, ``GROUP/rank=N``), or a ProfileGroup for a group."""
        if isinstance(name, int):
            name = self.names()[name]
        if name in self._cache:
            return self._cache[name]
        self.flush()
        directory = self.path(name)
        if is_group_dir(directory):
            group = ProfileGroup(directory)
            self._cache[name] = group
            return group
        if not is_profile_dir(directory):
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"no profile {name!r} in {self.root} (stored: {known})")
        profile = read_profile_dir(directory)
        self._cache[name] = profile
        return profile

    def __contains__(self, name) -> bool:
        self.flush()
        return isinstance(name, str) and _stored(self.path(name))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def versions(self, name: str) -> list[str]:
        base = self._base(name)
        return [n for n in self.names(versions=True) if n == base or n.startswith(base + "@")]

    def list(self, versions: bool = False) -> pd.DataFrame:
        """One row per stored profile: name, version, status, created, wall_ms, events, source, path."""
        rows = []
        for name in self.names(versions=versions):
            directory = self.path(name)
            try:
                with open(directory / (GROUP_FILE if is_group_dir(directory) else META_FILE), encoding="utf-8") as fh:
                    meta = json.load(fh)
            except (OSError, ValueError) as exc:
                rows.append({"name": name, "status": f"unreadable: {exc}"})
                continue
            wall = meta.get("wall_ns")
            rows.append({
                "name": name,
                "version": meta.get("version", 1),
                "status": meta.get("status", "ok"),
                "created": meta.get("created"),
                "wall_ms": wall / 1e6 if wall is not None else np.nan,
                "events": meta.get("counts", {}).get("events", np.nan),
                "ranks": len(meta["ranks"]) if "ranks" in meta else np.nan,
                "source": _describe_source(meta.get("source")),
                "path": str(self.path(name)),
            })
        cols = ["name", "version", "status", "created", "wall_ms", "events", "ranks", "source", "path"]
        return pd.DataFrame(rows, columns=cols)

    # -- writing -----------------------------------------------------------------------------
    def add(self, profile: Profile, name: str | None = None, *, background: bool = False) -> str:
        """Persist ``profile`` under ``name`` (default: its meta name) atomically; return the name.

        If the name exists, the existing profile is kept as ``NAME@k`` and this becomes version k+1.
        ``background=True`` returns before the files are written (see the module's doc); a failure is
        then printed to stderr and kept in ``write_errors`` instead of raised.
        """
        name = check_name(name or profile.name)
        profile.meta.update(name=name, counts={t: int(len(getattr(profile, t))) for t in TABLES})
        profile.meta.setdefault("version", None)        # known once written; the key exists from now on
        # a background write dumps a copy: the caller may go on reading or annotating the meta meanwhile
        meta = copy.deepcopy(profile.meta) if background else profile.meta

        def write(tmp: Path, version: int) -> None:
            meta["version"] = profile.meta["version"] = version
            write_profile_dir(profile, tmp, meta)

        if not background:
            self.flush()
            self._write_atomically(name, write)
            self._cache[name] = profile
            return name
        with self._lock:
            _with_writes[id(self)] = self
            self._cache.pop(name, None)       # the old NAME becomes NAME@k when this write lands
            self._queue.append((name, write, profile))
            if self._writer is None:
                # not a daemon: the interpreter waits for it at exit, so a queued profile is not lost
                self._writer = threading.Thread(target=self._drain, name="cann_nb-store-writer")
                self._writer.start()
        return name

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._writer = None
                    return
                name, write, profile = self._queue.popleft()
            self._write_in_background(name, write, profile)

    def _write_in_background(self, name: str, write, profile: Profile) -> None:
        try:
            self._write_atomically(name, write)
        except BaseException as exc:
            msg = f"cann_nb: could not store profile {name!r}: {exc}"
            self.write_errors.append(msg)
            print(msg, file=sys.stderr, flush=True)
            return
        self._cache[name] = profile

    def add_group(self, name: str, profiles: dict, meta: dict | None = None) -> str:
        """Persist one profile per rank as a group ``name`` (partitioned ``rank=N``), atomically."""
        self.flush()
        name = check_name(name)
        ranks = sorted(int(r) for r in profiles)

        def write(tmp: Path, version: int) -> None:
            for rank in ranks:
                p = profiles[rank]
                p.meta.update(name=f"{name}/rank={rank}", rank=rank, group=name, version=version)
                p.meta["counts"] = {t: int(len(getattr(p, t))) for t in TABLES}
                sub = tmp / f"rank={rank}"
                sub.mkdir()
                write_profile_dir(p, sub)
            group_meta = {**(meta or {}), "name": name, "version": version, "ranks": ranks,
                          "counts": {"events": int(sum(len(profiles[r].events) for r in ranks))}}
            group_meta.setdefault("created", next(iter(profiles.values())).meta.get("created") if profiles else None)
            with open(tmp / GROUP_FILE, "w", encoding="utf-8") as fh:
                json.dump(group_meta, fh, default=_json_default, indent=1, allow_nan=False)
                fh.flush()
                os.fsync(fh.fileno())

        self._write_atomically(name, write)
        self._cache.pop(name, None)
        return name

    def _write_atomically(self, name: str, write) -> None:
        """Run ``write(tmp_dir, version)`` then rename into place; keep an existing NAME as NAME@k."""
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".tmp-{name}-{uuid.uuid4().hex[:8]}"
        target = self.path(name)
        previous = 0
        try:
            tmp.mkdir()
            previous = self._version_of(target)
            write(tmp, previous + 1)
            if _stored(target):
                os.replace(target, self.root / f"{name}@{previous}")
            os.replace(tmp, target)
        except BaseException as exc:  # incl. KeyboardInterrupt: never leave the temp dir behind
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):
                raise StoreError(f"could not store profile {name!r} in {self.root}: {exc}; "
                                 "the store was left unchanged") from exc
            raise
        self._cache.pop(f"{name}@{previous}", None)

    def remove(self, name: str) -> None:
        self.flush()
        directory = self.path(name)
        if not _stored(directory):
            raise KeyError(f"no profile {name!r} in {self.root}")
        trash = self.root / f".tmp-del-{uuid.uuid4().hex[:8]}"
        os.replace(directory, trash)
        shutil.rmtree(trash, ignore_errors=True)
        self._cache.pop(name, None)

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _base(name: str) -> str:
        m = _VERSIONED_RE.match(name)
        return m.group("base") if m else name

    def _version_of(self, directory: Path) -> int:
        if not _stored(directory):
            # a crash between the two renames of add() can leave only NAME@k: continue after it
            olds = [int(m.group("version")) for n in self._names_on_disk(versions=True)
                    if (m := _VERSIONED_RE.match(n)) and m.group("base") == directory.name]
            return max(olds, default=0)
        try:
            with open(directory / (GROUP_FILE if is_group_dir(directory) else META_FILE), encoding="utf-8") as fh:
                return int(json.load(fh).get("version", 1))
        except (OSError, ValueError):
            return 1

    def _repr_html_(self) -> str:
        return self.list().to_html(index=False, escape=True)

    def __repr__(self) -> str:
        return f"<cann_nb Session {str(self.root)!r}: {len(self)} profiles>"


# sessions that ever wrote in the background, by id (a Session is a Mapping, so not hashable)
_with_writes: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _same_dir(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


@atexit.register
def _flush_at_exit() -> None:
    for session in list(_with_writes.values()):
        session.flush()


def _describe_source(source) -> str:
    if isinstance(source, dict):
        return str(source.get("path") or source.get("kind") or "")
    return "" if source is None else str(source)


class ProfileGroup(Mapping):
    """A multi-rank group: rank -> Profile. Stored groups load their ranks lazily; ``meta`` is group.json."""

    def __init__(self, directory=None, *, profiles: dict | None = None, meta: dict | None = None):
        self.directory = Path(directory) if directory is not None else None
        if self.directory is not None:
            with open(self.directory / GROUP_FILE, encoding="utf-8") as fh:
                self.meta = json.load(fh)
        else:
            self.meta = {**(meta or {}), "ranks": sorted(int(r) for r in (profiles or {}))}
        self._cache: dict[int, Profile] = {int(r): p for r, p in (profiles or {}).items()}

    @property
    def name(self) -> str:
        return self.meta.get("name", self.directory.name)

    @property
    def ranks(self) -> list[int]:
        return list(self.meta.get("ranks", []))

    def __getitem__(self, rank) -> Profile:
        if isinstance(rank, str) and rank.startswith("rank="):
            rank = rank[5:]
        rank = int(rank)
        if rank not in self._cache:
            if rank not in self.ranks or self.directory is None:
                raise KeyError(f"group {self.name!r} has no rank {rank} (ranks: {self.ranks})")
            self._cache[rank] = read_profile_dir(self.directory / f"rank={rank}")
        return self._cache[rank]

    def __iter__(self):
        return iter(self.ranks)

    def __len__(self) -> int:
        return len(self.ranks)

    def table(self, table: str = "events") -> pd.DataFrame:
        """One table of every rank, with a ``rank`` column (what a Hive-partitioned scan gives)."""
        from .model import concat

        frames = []
        for rank in self.ranks:
            df = getattr(self[rank], table).copy()
            df["rank"] = np.int32(rank)
            frames.append(df)
        return concat(table, frames)

    def summary_text(self) -> str:
        lines = [f"cann_nb group {self.name!r}: {len(self)} ranks"
                 + (f", world size {self.meta['world_size']}" if self.meta.get("world_size") else "")]
        for rank in self.ranks:
            p = self[rank]
            lines.append(f"  rank {rank}: {len(p.events):,} events, {p.wall_ns / 1e6:.3f} ms")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from html import escape

        return {"text/plain": self.summary_text(),
                "text/html": "<pre>" + escape(self.summary_text()) + "</pre>"}

    def __repr__(self) -> str:
        return f"<ProfileGroup {self.name!r}: ranks {self.ranks}>"
