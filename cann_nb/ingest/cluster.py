"""Multi-rank imports: find the ranks in a folder and import them in parallel processes.

A cluster folder holds one profile per rank: Ascend ``rank*_ascend_pt`` folders (found by the Ascend
importer) or Kineto traces (``*.json``/``*.json.gz``), whose rank comes from ``distributedInfo`` near the
top of the file, else from a ``rank``/``worker`` number in the file name, else from their order.

``stream_ranks`` imports them as a stream, (rank, Profile) pairs handed on as each is read, with at most
``workers`` imported ranks held at once: ``cann-nb import`` writes each into the store's group and lets it
go, so its memory does not grow with the rank count. ``import_ranks`` keeps them all (``cann_nb.load``).
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

_RANK_IN_INFO = re.compile(rb'"distributedInfo"\s*:\s*\{[^}]*?"rank"\s*:\s*"?(\d+)')
_WORLD_IN_INFO = re.compile(rb'"distributedInfo"\s*:\s*\{[^}]*?"world_size"\s*:\s*(\d+)')
_RANK_IN_NAME = re.compile(r"(?:rank|worker)[-_]?(\d+)", re.IGNORECASE)
_HEAD_BYTES = 1 << 16


def _head(path: Path) -> bytes:
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                return fh.read(_HEAD_BYTES)
        with open(path, "rb") as fh:
            return fh.read(_HEAD_BYTES)
    except (OSError, EOFError):
        return b""  # a broken file is reported by the importer, with its place


def kineto_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name.lower().endswith((".json", ".json.gz")) and not p.name.startswith("."))


def find_ranks(path) -> list[tuple[int, Path]]:
    """(rank, path) for every rank under ``path``; fewer than two means it is not a cluster folder."""
    path = Path(path)
    if not path.is_dir():
        return []
    from .ascend import find_ranks as ascend_ranks

    found = ascend_ranks(path)
    if len(found) >= 2:
        return sorted((int(r), Path(p)) for r, p in found)
    if found:  # one Ascend run: its profiler_info/metadata JSON files are not Kineto ranks
        return []
    files = kineto_files(path)
    if len(files) < 2:
        return []
    ranks = []
    for index, f in enumerate(files):
        m = _RANK_IN_INFO.search(_head(f))
        name = _RANK_IN_NAME.search(f.name)
        ranks.append(int(m.group(1)) if m else int(name.group(1)) if name else index)
    if len(set(ranks)) != len(ranks):  # duplicated ranks: fall back to the files' order
        ranks = list(range(len(files)))
    return sorted(zip(ranks, files))


def world_size_hint(path: Path) -> int | None:
    m = _WORLD_IN_INFO.search(_head(path)) if path.is_file() else None
    return int(m.group(1)) if m else None


def _load_one(path: str):
    from .load import load_single

    return load_single(Path(path))


def import_ranks(items: list[tuple[int, Path]], workers: int | None = None, progress: bool = True) -> dict:
    """rank -> Profile, imported in parallel processes (``workers`` = 1 imports in this process)."""
    return dict(stream_ranks(items, workers=workers, progress=progress))


def stream_ranks(items: list[tuple[int, Path]], workers: int | None = None, progress: bool = True,
                 group_meta: dict | None = None) -> Iterator[tuple[int, object]]:
    """(rank, Profile) for every rank, in the order they finish importing, in parallel processes
    (``workers`` = 1: in this process). At most ``workers`` imported profiles wait here at once, so the
    caller that lets each go holds memory for a few ranks whatever their number.

    Each rank's ``meta`` gets ``rank`` and ``world_size``. The world size is known only once every rank is
    read (the largest a rank states, else the rank count): after the last rank, every handed-out meta
    and ``group_meta`` are set to it (``Session.add_group`` writes the metas after its last rank)."""
    workers = workers or min(len(items), os.cpu_count() or 1)
    metas = []
    bar = _progress(len(items), "ranks", progress)
    try:
        for rank, profile in _imported(items, workers):
            profile.meta["rank"] = int(rank)
            profile.meta.setdefault("world_size", len(items))
            metas.append(profile.meta)   # a small dict: the profile itself is let go by the caller
            bar.update(1)
            yield int(rank), profile
            del profile
    finally:
        bar.close()
    world = max((m.get("world_size") or 0 for m in metas), default=0) or len(items)
    for m in metas:
        m["world_size"] = world
    if group_meta is not None:
        group_meta["world_size"] = world


def _imported(items, workers: int):
    if workers <= 1 or len(items) <= 1:
        for rank, p in items:
            yield rank, _load_one(str(p))
        return
    # spawn: forking a kernel process with live threads (zmq, samplers) is not safe
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        todo, running = iter(items), {}

        def refill():   # at most `workers` ranks in flight or waiting: a finished one holds its profile
            for rank, p in todo:
                running[pool.submit(_load_one, str(p))] = rank
                if len(running) >= workers:
                    return

        refill()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            while done:
                fut = done.pop()
                rank = running.pop(fut)
                profile = fut.result()
                del fut   # the future holds the result too
                refill()
                yield rank, profile
                del profile


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress(total: int, unit: str, enabled: bool):
    if not enabled or total < 2:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, unit=unit, desc="importing", leave=False)
