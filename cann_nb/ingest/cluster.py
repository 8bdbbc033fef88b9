"""Multi-rank imports: find the ranks in a folder and import them in parallel processes.

A cluster folder holds one profile per rank: Ascend ``rank*_ascend_pt`` folders (found by the Ascend
importer) or Kineto traces (``*.json``/``*.json.gz``), whose rank comes from ``distributedInfo`` near the
top of the file, else from a ``rank``/``worker`` number in the file name, else from their order.
"""

from __future__ import annotations

import gzip
import os
import re
from concurrent.futures import ProcessPoolExecutor
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
    workers = workers or min(len(items), os.cpu_count() or 1)
    bar = _progress(len(items), "ranks", progress)
    results = {}
    try:
        if workers <= 1 or len(items) <= 1:
            for rank, p in items:
                results[rank] = _load_one(str(p))
                bar.update(1)
        else:
            # spawn: forking a kernel process with live threads (zmq, samplers) is not safe
            with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
                futures = {pool.submit(_load_one, str(p)): rank for rank, p in items}
                for fut, rank in futures.items():
                    results[rank] = fut.result()
                    bar.update(1)
    finally:
        bar.close()
    for rank, profile in results.items():
        profile.meta["rank"] = int(rank)
        profile.meta.setdefault("world_size", len(items))
    return results


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
