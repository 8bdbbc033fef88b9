"""The session store: profiles by name, persisted as Parquet + JSON, readable without cann_nb.

On disk (``root`` = --output, $CANN_NB_DIR or ./profile_results)::

    root/NAME/meta.json  events.parquet  memory.parquet  counters.parquet   the latest version of NAME
    root/NAME@1/ ...                                                         older versions, kept
    root/GROUP/group.json  rank=0/<a profile dir>  rank=1/...               a multi-rank group
    root/.lock  root/.tmp-*                                                  the write lock, writes in progress

A group is partitioned by rank the Hive way, so a whole cluster is one scan for other tools, e.g.
DuckDB ``read_parquet('root/GROUP/*/events.parquet', hive_partitioning=1)`` gives a ``rank`` column.

A write (see ``Session._write_atomically``) fills ``root/.tmp-*`` with fsynced files, then, holding
the store's lock, names its version, renames ``NAME`` to ``NAME@k`` and the temp dir to ``NAME``.
So a crash, a full disk or a Ctrl-C never leaves a half profile under a real name, and concurrent
writers (threads, processes, machines sharing the directory) each get their own version. A crash
between the two renames leaves only ``NAME@k``: reads then resolve ``NAME`` to it, and the next
write puts it back and removes orphan temp dirs (``repair``). The exact promise is in
docs/architecture.md, "The store".

``add(..., background=True)`` hands the write to the session's one writer thread (writes stay in
order) and returns at once: the notebook shows a profile while its files are written. Every read of
the session waits for pending writes first (``flush``), the magic flushes before its cell ends
(so whatever reads the directory next sees the files) and the interpreter flushes at exit.
"""

from __future__ import annotations

import atexit
import copy
import errno
import json
import os
import re
import shutil
import socket
import sys
import threading
import time
import uuid
import weakref
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import StoreError, TraceFormatError
from .model import TABLES, Profile

try:
    import fcntl
except ImportError:  # Windows: the mkdir lock below stands in
    fcntl = None

DEFAULT_DIR = "profile_results"
META_FILE = "meta.json"
GROUP_FILE = "group.json"
ORPHAN_GRACE_S = 3600.0      # a .tmp-* this old, with no live writer, is removed by the next write
_LOCK_FILE = ".lock"         # flock'ed by a writer while it names its version and renames
_LOCK_DIR = ".lock.d"        # the same lock where flock is not available (mkdir is atomic everywhere)
_STALE_LOCK_S = 120.0        # a .lock.d this old is a dead holder's (the locked part takes well under 1 s)
_CLAIM_FILE = ".writer.lock"  # flock'ed inside a temp dir by its live writer
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
    _write_json(directory / META_FILE, profile.meta if meta is None else meta)


def _write_json(path: Path, obj) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, default=_json_default, indent=1, allow_nan=False)
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


def _fsync_dir(path: Path) -> None:
    """Make the entries of ``path`` (files created or renamed in it) durable. Windows and a few
    filesystems cannot fsync a directory: there it is skipped."""
    if os.name == "nt":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def _step(point: str) -> None:
    """A named point of a write: tmp-created, tables-written, locked, meta-written, old-renamed,
    new-renamed. It does nothing; the fault-injection tests replace it to kill or interrupt a writer there."""


# -- locking -------------------------------------------------------------------------------------
# One lock per store root serialises the short, final part of every write (naming the version and
# renaming). flock on root/.lock reaches other processes and, on NFSv4 or NFSv3 with lockd, other
# machines; where flock is missing (Windows, some network filesystems) a mkdir lock stands in. The
# renames never overwrite a non-empty directory, so even writers the lock failed to separate could
# only fail, never replace each other's profiles.

_process_locks: dict[str, threading.Lock] = {}
_process_locks_guard = threading.Lock()


def _flock(fd: int, wait: bool = True) -> bool | None:
    """Lock ``fd`` exclusively: True; False when ``wait`` is off and someone holds it; None where
    this OS or filesystem has no flock."""
    if fcntl is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError as exc:
        # EBADF: NFS emulates flock with fcntl locks, which need a file open for writing
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL, errno.EBADF):
            return None
        raise
    return True


def _open_lock_file(path: Path, create: bool = False) -> int:
    """Open a lock file; read-only when it is another user's in a shared store (flock needs no more)."""
    try:
        return os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o666)
    except PermissionError:
        return os.open(path, os.O_RDONLY)


@contextmanager
def _store_lock(root: Path):
    """Hold ``root``'s write lock against this process's other threads and other processes."""
    # a per-process lock first: flock emulated over NFS may not separate threads of one process
    with _process_locks_guard:
        thread_lock = _process_locks.setdefault(os.path.realpath(root), threading.Lock())
    with thread_lock:
        fd = _open_lock_file(root / _LOCK_FILE, create=True)
        try:
            if _flock(fd) is None:
                with _dir_lock(root):
                    yield
            else:
                yield
        finally:
            os.close(fd)  # releases the flock, also when the process dies


@contextmanager
def _dir_lock(root: Path):
    """The fallback lock: the directory root/.lock.d, its ``owner`` file naming host and pid."""
    lock = root / _LOCK_DIR
    while True:
        try:
            lock.mkdir()
            break
        except FileExistsError:
            if not _lock_is_stale(lock):
                time.sleep(0.02)
                continue
            try:
                _delete([_rename_to_trash(lock)])
            except OSError:  # another waiter broke it first
                pass
    try:
        (lock / "owner").write_text(f"{socket.gethostname()} {os.getpid()}", encoding="utf-8")
        yield
    finally:
        shutil.rmtree(lock, ignore_errors=True)


def _lock_is_stale(lock: Path) -> bool:
    """A fallback lock whose holder died: its process is gone (same machine) or it is too old."""
    try:
        if time.time() - lock.stat().st_mtime > _STALE_LOCK_S:
            return True
        host, pid = (lock / "owner").read_text(encoding="utf-8").split()
    except (OSError, ValueError):  # gone, or its holder has not written the owner yet
        return False
    return host == socket.gethostname() and not _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, as another user's
        return True
    return True


def _claim(tmp: Path) -> int | None:
    """Mark ``tmp`` as being written by a live process (an flock the kernel drops when it dies), so
    the orphan sweep of other writers leaves it alone. None where there is no flock."""
    fd = os.open(tmp / _CLAIM_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    if _flock(fd, wait=False):
        return fd
    os.close(fd)
    (tmp / _CLAIM_FILE).unlink()
    return None


def _release(tmp: Path, fd: int | None) -> None:
    if fd is not None:
        (tmp / _CLAIM_FILE).unlink(missing_ok=True)  # not part of the profile
        os.close(fd)


def _claimed(tmp: Path) -> bool:
    """Whether a live writer holds ``tmp`` (see ``_claim``)."""
    try:
        fd = _open_lock_file(tmp / _CLAIM_FILE)
    except OSError:
        return False
    try:
        return _flock(fd, wait=False) is False
    finally:
        os.close(fd)


def _rename_to_trash(path: Path) -> Path:
    """Move ``path`` out of sight at once (an atomic rename); deleting it may take a while."""
    trash = path.parent / f".tmp-del-{uuid.uuid4().hex[:8]}"
    os.rename(path, trash)
    return trash


def _delete(paths) -> None:
    for path in paths:
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        except OSError:
            pass  # what is left is swept by a later write


def _listdir(root: Path) -> list[str]:
    try:
        return os.listdir(root)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _version_suffix(entry: str, base: str) -> int | None:
    m = _VERSIONED_RE.match(entry)
    return int(m.group("version")) if m and m.group("base") == base else None


def _store_error(name: str, path: Path, exc: BaseException) -> StoreError:
    """A StoreError naming the profile, the place and the reason; ``errno`` is the cause's (ENOSPC ...)."""
    err = StoreError(f"could not store profile {name!r} at {path}: {exc}; the store was left unchanged")
    err.errno = getattr(exc, "errno", None)
    return err


class Session(Mapping):
    """Every profile under one directory, by name. Profiles load lazily and are cached."""

    def __init__(self, root=None):
        self.root = Path(root) if root is not None else default_root()
        self._cache: dict[str, Profile] = {}
        self._queue: deque = deque()                      # background adds, written one at a time, in order
        self._writer: threading.Thread | None = None      # runs while the queue has work, then ends
        self._lock = threading.Lock()
        self.write_errors: list[str] = []                  # background writes that failed, as messages
        self.repairs: list[str] = []                       # what this session's writes put in order

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
        entries = [e for e in _listdir(self.root) if not e.startswith(".") and _stored(self.root / e)]
        if not versions:  # NAME@k stands for NAME when a crash left no NAME (see _resolve)
            entries = {self._base(e) for e in entries}
        found = []
        for name in entries:
            try:
                found.append((os.stat(self._resolve(name) or self.path(name)).st_mtime, name))
            except OSError:  # removed meanwhile
                continue
        return [n for _, n in sorted(found)]

    def path(self, name: str) -> Path:
        """Where ``name`` is written (``root/name``); ``locate`` says where it is read from."""
        return self.root / name

    def locate(self, name: str) -> Path | None:
        """The directory ``name`` is read from, None when not stored: ``root/name``, or its newest
        ``NAME@k`` after a crash between the two renames of a write."""
        self.flush()
        return self._resolve(name)

    def _resolve(self, name: str) -> Path | None:
        """The directory holding ``name`` (``NAME``, ``NAME@k``, ``GROUP/rank=N``), or None. A crash
        between the two renames of a write leaves no ``NAME``: its newest ``NAME@k`` stands in."""
        head, sep, tail = name.partition("/")
        if not head or head.startswith("."):
            return None
        directory = self.root / head
        if not _stored(directory) and not _VERSIONED_RE.match(head):
            directory = self._newest_version(head) or directory
        directory = directory / tail if sep else directory
        return directory if _stored(directory) else None

    def _newest_version(self, base: str) -> Path | None:
        found = [(k, e) for e in _listdir(self.root)
                 if (k := _version_suffix(e, base)) is not None and _stored(self.root / e)]
        return self.root / max(found)[1] if found else None

    def __getitem__(self, name: str):
        """A Profile by name (``NAME``, ``NAME@k``, ``GROUP/rank=N``), or a ProfileGroup for a group."""
        if isinstance(name, int):
            name = self.names()[name]
        if name in self._cache:
            return self._cache[name]
        self.flush()
        directory = self._resolve(name) if isinstance(name, str) else None
        if directory is None:
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"no profile {name!r} in {self.root} (stored: {known})")
        obj = ProfileGroup(directory) if is_group_dir(directory) else read_profile_dir(directory)
        self._cache[name] = obj
        return obj

    def __contains__(self, name) -> bool:
        self.flush()
        return isinstance(name, str) and self._resolve(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def versions(self, name: str) -> list[str]:
        """``NAME@1 ... NAME@k, NAME``: the stored versions of a name, oldest first."""
        base = self._base(name)
        found = [n for n in self.names(versions=True) if self._base(n) == base]
        return sorted(found, key=lambda n: (n == base, _version_suffix(n, base) or 0))

    def list(self, versions: bool = False) -> pd.DataFrame:
        """One row per stored profile: name, version, status, created, wall_ms, events, ranks, source, path.

        A damaged profile is listed too, its status ``broken: FILE: reason`` (its JSON, or a Parquet
        file whose footer does not read: missing or truncated); ``events`` is the row count in the
        events file's footer, not what meta.json claims."""
        rows = [self._row(name) for name in self.names(versions=versions)]
        return pd.DataFrame(rows, columns=list(_LIST_DTYPES)).astype(_LIST_DTYPES)

    def _row(self, name: str) -> dict:
        directory = self._resolve(name) or self.path(name)
        meta, events, problem = _inspect(directory)
        wall, ranks = meta.get("wall_ns"), meta.get("ranks")
        version = meta.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            version = _version_suffix(directory.name, self._base(directory.name))
        return {
            "name": name,
            "version": pd.NA if version is None else version,
            "status": f"broken: {problem}" if problem else str(meta.get("status", "ok")),
            "created": None if meta.get("created") is None else str(meta["created"]),
            "wall_ms": wall / 1e6 if isinstance(wall, (int, float)) and not isinstance(wall, bool) else np.nan,
            "events": pd.NA if events is None else events,
            "ranks": len(ranks) if is_group_dir(directory) and isinstance(ranks, list) else pd.NA,
            "source": _describe_source(meta.get("source")),
            "path": str(directory),
        }

    # -- writing -----------------------------------------------------------------------------
    def add(self, profile: Profile, name: str | None = None, *, background: bool = False,
            quiet: bool = False) -> str:
        """Persist ``profile`` under ``name`` (default: its meta name) atomically; return the name.

        If the name exists, the existing profile is kept as ``NAME@k`` and this becomes the next
        version (``meta["version"]`` once written). A failure raises StoreError and leaves the store
        as it was. ``background=True`` returns before the files are written (see the module's doc); a
        failure is then printed to stderr and kept in ``write_errors`` instead of raised (``quiet``:
        only kept, for a caller that reports it itself).
        """
        name = check_name(name or profile.name)
        profile.meta.update(name=name, counts={t: int(len(getattr(profile, t))) for t in TABLES})
        profile.meta.setdefault("version", None)        # known once written; the key exists from now on
        # a background write dumps a copy: the caller may go on reading or annotating the meta meanwhile
        meta = copy.deepcopy(profile.meta) if background else dict(profile.meta)

        def write(tmp: Path) -> None:
            write_profile_dir(profile, tmp, meta)

        def finish(tmp: Path, version: int) -> None:
            meta["version"] = version
            _write_json(tmp / META_FILE, meta)

        if not background:
            self.flush()
            profile.meta["version"] = self._write_atomically(name, write, finish)
            self._cache[name] = profile
            return name
        with self._lock:
            _with_writes[id(self)] = self
            self._cache.pop(name, None)       # the old NAME becomes NAME@k when this write lands
            self._queue.append((name, write, finish, profile, quiet))
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
                job = self._queue.popleft()
            self._write_in_background(*job)

    def _write_in_background(self, name: str, write, finish, profile: Profile, quiet: bool) -> None:
        try:
            version = self._write_atomically(name, write, finish)
        except BaseException as exc:
            msg = f"cann_nb: {exc if isinstance(exc, StoreError) else f'could not store profile {name!r}: {exc!r}'}"
            self.write_errors.append(msg)
            if not quiet:
                print(msg, file=sys.stderr, flush=True)
            return
        profile.meta["version"] = version
        self._cache[name] = profile

    def add_group(self, name: str, profiles, meta: dict | None = None) -> str:
        """Persist one profile per rank as a group ``name`` (partitioned ``rank=N``), atomically.

        ``profiles``: rank -> Profile, or an iterable of (rank, Profile) pairs that is consumed one rank at
        a time: each is written into the temp dir and let go before the next is taken, so a streamed
        import holds one rank, not all (only each rank's meta dict is kept). ``meta`` and the ranks' metas
        are read after the last rank, so a stream may still complete them (the world size). A failure
        anywhere in the stream leaves the store as it was, like any write."""
        self.flush()
        name = check_name(name)
        pairs = iter(profiles.items() if isinstance(profiles, Mapping) else profiles)
        metas: dict[int, dict] = {}
        source_errors = []

        def write(tmp: Path) -> None:
            try:
                while True:
                    try:
                        rank, p = next(pairs)
                    except StopIteration:
                        break
                    except Exception as exc:   # the stream's own (a bad trace): raised as it is, below
                        source_errors.append(exc)
                        raise
                    rank = int(rank)
                    if rank in metas:
                        raise ValueError(f"rank {rank} was given twice")
                    p.meta.update(name=f"{name}/rank={rank}", rank=rank, group=name)
                    p.meta["counts"] = {t: int(len(getattr(p, t))) for t in TABLES}
                    sub = tmp / f"rank={rank}"
                    sub.mkdir()
                    write_profile_dir(p, sub)
                    metas[rank] = p.meta
                    del p   # before the stream makes the next rank: one rank in memory at a time
            finally:
                close = getattr(pairs, "close", None)
                if close is not None:   # a generator left early (an error): its workers stop now
                    close()

        def finish(tmp: Path, version: int) -> None:
            ranks = sorted(metas)
            for rank in ranks:
                metas[rank]["version"] = version
                _write_json(tmp / f"rank={rank}" / META_FILE, metas[rank])
                _fsync_dir(tmp / f"rank={rank}")
            group_meta = {**(meta or {}), "name": name, "version": version, "ranks": ranks,
                          "counts": {"events": int(sum(metas[r]["counts"]["events"] for r in ranks))}}
            group_meta.setdefault("created", metas[ranks[0]].get("created") if ranks else None)
            _write_json(tmp / GROUP_FILE, group_meta)

        try:
            self._write_atomically(name, write, finish)
        except StoreError:
            if source_errors:   # the store is as it was; the import's error names the file and the place
                raise source_errors[0] from None
            raise
        self._cache.pop(name, None)
        return name

    def _write_atomically(self, name: str, write, finish) -> int:
        """Store ``name``; return its version. ``write(tmp)`` writes the bulky files into a fresh temp
        dir, unlocked (concurrent writers overlap there); then, holding the store's lock, the store is
        repaired if a crash left it so, the version is chosen, ``finish(tmp, version)`` writes the
        small JSON that names it, and ``_commit`` renames the temp dir into place. On any failure the
        temp dir goes and the store is as it was: StoreError (KeyboardInterrupt and the like re-raised)."""
        tmp = self.root / f".tmp-{name}-{uuid.uuid4().hex[:8]}"
        claim, trash = None, []
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp.mkdir()
            claim = _claim(tmp)
            _step("tmp-created")
            write(tmp)
            _step("tables-written")
            with _store_lock(self.root):
                _step("locked")
                trash = self._repair_locked(ORPHAN_GRACE_S)
                version, kept_as = self._next_version(name)
                finish(tmp, version)
                _release(tmp, claim)
                claim = None
                _fsync_dir(tmp)
                _step("meta-written")
                self._commit(tmp, name, kept_as)
        except BaseException as exc:  # incl. KeyboardInterrupt: never leave the temp dir behind
            _release(tmp, claim)
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, Exception):
                raise _store_error(name, self.path(name), exc) from exc
            raise
        finally:
            _delete(trash)
        self._cache.pop(f"{name}@{kept_as}", None)
        return version

    def _next_version(self, name: str) -> tuple[int, int | None]:
        """Under the lock: (the new version, the ``k`` the current ``NAME`` is kept under as ``NAME@k``,
        None when there is no NAME). Every ``NAME@k`` entry counts, so no rename meets an existing one."""
        taken = [k for e in _listdir(self.root) if (k := _version_suffix(e, name)) is not None]
        target = self.path(name)
        if not os.path.lexists(target):
            return max(taken, default=0) + 1, None
        if not _stored(target):
            raise FileExistsError(errno.EEXIST, f"{target} exists and is not a cann_nb profile "
                                  f"(no {META_FILE}); move it away", str(target))
        current = _version_in(target)
        if current is None or current < 1 or current in taken:
            current = max(taken, default=0) + 1
        return max([current, *taken]) + 1, current

    def _commit(self, tmp: Path, name: str, kept_as: int | None) -> None:
        """``NAME`` -> ``NAME@k`` (when there is a NAME), then ``tmp`` -> ``NAME``, then fsync the root.
        A failure on the way (a full disk, a Ctrl-C) undoes what was done. A crash in between
        leaves no NAME, which reads and the next write's repair handle."""
        target = self.path(name)
        kept = self.root / f"{name}@{kept_as}" if kept_as is not None else None
        moved = placed = False
        try:
            if kept is not None:
                os.rename(target, kept)
                moved = True
                _step("old-renamed")
            os.rename(tmp, target)
            placed = True
            _step("new-renamed")
            _fsync_dir(self.root)
        except BaseException:
            try:
                if placed:
                    os.rename(target, tmp)
                if moved:
                    os.rename(kept, target)
            except OSError:
                pass  # the next write's repair restores NAME
            raise

    def repair(self, grace_s: float = ORPHAN_GRACE_S) -> list[str]:
        """Put the store in order now, as every write does first: restore a ``NAME`` that a crash left
        only as ``NAME@k``, and remove temp dirs older than ``grace_s`` that no live writer holds.
        Returns what was done (also appended to ``repairs`` and printed to stderr)."""
        self.flush()
        if not self.root.is_dir():
            return []
        before = len(self.repairs)
        with _store_lock(self.root):
            trash = self._repair_locked(grace_s)
        _delete(trash)
        return self.repairs[before:]

    def _repair_locked(self, grace_s: float) -> list[Path]:
        """Under the lock: undo interrupted renames; move orphan temp dirs to trash (returned, to be
        deleted once the lock is released)."""
        entries = set(_listdir(self.root))
        newest: dict[str, tuple[int, str]] = {}
        for e in entries:
            m = _VERSIONED_RE.match(e)
            if m and m.group("base") not in entries and _stored(self.root / e):
                newest[m.group("base")] = max(newest.get(m.group("base"), (0, "")), (int(m.group("version")), e))
        # best effort: what cannot be moved (another user's, say) stays; reads cope with it
        for base, (_, entry) in sorted(newest.items()):
            try:
                os.rename(self.root / entry, self.root / base)
            except OSError:
                continue
            self._note(f"restored {entry} as {base} (a write was interrupted between its two renames)")
        trash = []
        for e in sorted(entries):
            if not (e.startswith(".tmp-") and self._orphan(self.root / e, grace_s)):
                continue
            try:
                trash.append(self.root / e if e.startswith(".tmp-del-") else _rename_to_trash(self.root / e))
            except OSError:
                continue
            self._note(f"removed {e}, left by an interrupted {'removal' if e.startswith('.tmp-del-') else 'write'}")
        if newest or trash:
            _fsync_dir(self.root)
            self._cache.clear()
        return trash

    @staticmethod
    def _orphan(path: Path, grace_s: float) -> bool:
        try:
            age = time.time() - path.lstat().st_mtime
        except OSError:
            return False
        return age >= grace_s and not _claimed(path)

    def _note(self, what: str) -> None:
        msg = f"cann_nb: store {self.root}: {what}"
        self.repairs.append(msg)
        print(msg, file=sys.stderr, flush=True)

    def remove(self, name: str) -> None:
        """Remove ``NAME`` with all its older versions, or just ``NAME@k``."""
        self.flush()
        doomed = [name] if _VERSIONED_RE.match(name) or "/" in name else self.versions(name)
        if not doomed or not all(_stored(self.path(n)) for n in doomed):
            raise KeyError(f"no profile {name!r} in {self.root}")
        trash = []
        try:
            with _store_lock(self.root):
                trash = [_rename_to_trash(self.path(n)) for n in doomed]
                _fsync_dir(self.root)
        except OSError as exc:
            raise StoreError(f"could not remove {name!r} from {self.root}: {exc}") from exc
        finally:
            _delete(trash)
        for n in doomed:
            self._cache.pop(n, None)

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _base(name: str) -> str:
        m = _VERSIONED_RE.match(name)
        return m.group("base") if m else name

    def _repr_html_(self) -> str:
        return self.list().to_html(index=False, escape=True)

    def __repr__(self) -> str:
        return f"<cann_nb Session {str(self.root)!r}: {len(self)} profiles>"


_LIST_DTYPES = {"name": object, "version": "Int64", "status": object, "created": object, "wall_ms": "float64",
                "events": "Int64", "ranks": "Int64", "source": object, "path": object}


def _version_in(directory: Path) -> int | None:
    meta, problem = _read_json(directory / (GROUP_FILE if is_group_dir(directory) else META_FILE))
    version = meta.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) and not problem else None


def _read_json(path: Path) -> tuple[dict, str | None]:
    """A stored JSON object, or ({}, what is wrong with it, naming the file)."""
    try:
        with open(path, encoding="utf-8") as fh:
            obj = json.load(fh)
    except FileNotFoundError:
        return {}, f"{path.name}: missing"
    except OSError as exc:
        return {}, f"{path.name}: unreadable ({exc.strerror or exc})"
    except json.JSONDecodeError as exc:
        return {}, f"{path.name}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except ValueError as exc:  # UnicodeDecodeError
        return {}, f"{path.name}: not valid JSON ({exc})"
    if not isinstance(obj, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(obj), "a number")
        return {}, f"{path.name}: not a JSON object ({kind})"
    return obj, None


def _check_tables(directory: Path) -> tuple[int | None, str | None]:
    """(rows of the events table, None) when every table's Parquet footer reads, else (None, the problem).
    A footer read is a few small reads; a truncated file has none."""
    import pyarrow.parquet as pq

    events = None
    for table in TABLES:
        path = directory / f"{table}.parquet"
        if not path.is_file():
            return None, f"{path.name}: missing"
        try:
            rows = pq.read_metadata(path).num_rows
        except Exception as exc:  # pyarrow raises several types for a damaged file
            return None, f"{path.name}: not a readable Parquet file ({str(exc).split('. ')[0]})"
        if table == "events":
            events = rows
    return events, None


def _inspect(directory: Path) -> tuple[dict, int | None, str | None]:
    """(meta, event rows, problem) of a stored profile or group, checked cheaply for ``Session.list``."""
    if not is_group_dir(directory):
        meta, problem = _read_json(directory / META_FILE)
        events, problem = (None, problem) if problem else _check_tables(directory)
        return meta, events, problem
    meta, problem = _read_json(directory / GROUP_FILE)
    ranks = meta.get("ranks", [])
    if problem or not isinstance(ranks, list):
        return meta, None, problem or f"{GROUP_FILE}: 'ranks' is not a list"
    total = 0
    for rank in ranks:
        sub = directory / f"rank={rank}"
        _, problem = _read_json(sub / META_FILE)
        events, problem = (None, problem) if problem else _check_tables(sub)
        if problem:
            return meta, None, f"rank={rank}/{problem}"
        total += events
    return meta, total, None


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
            self.meta, problem = _read_json(self.directory / GROUP_FILE)
            if problem:
                raise TraceFormatError(self.directory / GROUP_FILE, expected="a cann_nb group.json object",
                                       detail=problem)
        else:
            self.meta = {**(meta or {}), "ranks": sorted(int(r) for r in (profiles or {}))}
        self._cache: dict[int, Profile] = {int(r): p for r, p in (profiles or {}).items()}

    @property
    def name(self) -> str:
        # an imported group held in memory has no directory (and may have no name yet)
        return self.meta.get("name") or (self.directory.name if self.directory is not None else "")

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
