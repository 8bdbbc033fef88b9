"""Retention of stored monitoring windows: keep at most ``max_windows`` and none older than ``max_age_s``.

Windows are profile directories ``w000001``, ``w000002``... (sequence order = time order) in the
monitor's directory. Pruning removes the oldest first, each by an atomic rename to ``.tmp-del-*``
followed by deletion, so a reader never sees half a window. Age is the window's end time
(``meta.monitor.window_end_ns``), read only for the oldest windows until a young enough one is found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from pathlib import Path

WINDOW_RE = re.compile(r"^w(\d{6,})$")


def window_dirs(root: Path) -> list[tuple[int, Path]]:
    """(seq, directory) of the stored windows, oldest first."""
    root = Path(root)
    if not root.is_dir():
        return []
    out = []
    for entry in root.iterdir():
        m = WINDOW_RE.match(entry.name)
        if m and (entry / "meta.json").is_file():
            out.append((int(m.group(1)), entry))
    return sorted(out)


def _end_ns(directory: Path) -> int | None:
    try:
        with open(directory / "meta.json", encoding="utf-8") as fh:
            return int(json.load(fh)["monitor"]["window_end_ns"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove_window(directory: Path) -> None:
    trash = directory.parent / f".tmp-del-{uuid.uuid4().hex[:8]}"
    os.replace(directory, trash)
    shutil.rmtree(trash, ignore_errors=True)


def prune(root: Path, max_windows: int | None, max_age_s: float | None, now_ns: int | None = None) -> list[str]:
    """Remove windows beyond the limits; returns the removed names."""
    windows = window_dirs(root)
    doomed: list[Path] = []
    if max_windows is not None and len(windows) > max_windows:
        doomed = [d for _, d in windows[: len(windows) - max_windows]]
    if max_age_s is not None:
        limit = (now_ns if now_ns is not None else time.time_ns()) - int(max_age_s * 1e9)
        for _, d in windows[len(doomed):]:
            end = _end_ns(d)
            if end is None or end >= limit:
                break
            doomed.append(d)
    removed = []
    for d in doomed:
        try:
            remove_window(d)
            removed.append(d.name)
        except OSError:
            continue
    return removed
