"""Which Ascend layout a path is, and where its files are (formats.md §1).

Accepted: a torch_npu / MindSpore ``*_ascend_pt`` / ``*_ascend_ms`` folder, its ``ASCEND_PROFILER_OUTPUT``,
a single ``ascend_pytorch_profiler_*.db`` / ``ascend_mindspore_profiler_*.db`` / ``msprof_*.db``, a native
``PROF_*`` folder or its ``mindstudio_profiler_output``, a legacy MindSpore ``profiler`` folder, and - for
convenience - a single ``trace_view.json`` or ``kernel_details.csv``/``op_summary*.csv``. CSV roles come
from header sniffing (wrappers rename files), falling back to the file name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import TraceFormatError
from .csv_text import classify, read_header, role_from_name
from .trace_view import looks_like_trace_view

OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"
MSPROF_DIR = "mindstudio_profiler_output"
SQLITE_MAGIC = b"SQLite format 3\x00"
_LEGACY_RE = re.compile(r"^(aicore_intermediate_\d+_(detail|type)|framework_raw_\d+|step_trace_raw_\d+_detail_time)\.csv$")


@dataclass
class Layout:
    fmt: str                      # torch_npu-text|torch_npu-db|mindspore-text|mindspore-db|msprof-text|msprof-db|mindspore-legacy
    path: Path                    # what was given
    root: Path | None = None      # run folder holding profiler_info*.json / profiler_metadata.json
    db: Path | None = None
    analysis_db: Path | None = None
    files: dict[str, list[Path]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    given: Path | None = None     # the path the user passed (for messages and meta)

    @property
    def info_json(self) -> Path | None:
        if self.root is None or not self.root.is_dir():
            return None
        found = sorted(self.root.glob("profiler_info*.json"))
        return found[0] if found else None

    @property
    def metadata_json(self) -> Path | None:
        if self.root is None:
            return None
        p = self.root / "profiler_metadata.json"
        return p if p.is_file() else None


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _framework(root: Path | None, db: Path | None = None) -> str:
    names = [p.name for p in (root, db) if p is not None]
    return "mindspore" if any(n.endswith("_ascend_ms") or "mindspore" in n for n in names) else "torch_npu"


def _db_kind(db: Path) -> str:
    n = db.name.lower()
    if n.startswith("msprof"):
        return "msprof-db"
    if n.startswith("ascend_mindspore_profiler"):
        return "mindspore-db"
    return "torch_npu-db"


def scan_text(folder: Path) -> tuple[dict[str, list[Path]], list[str]]:
    """Roles of the files in one export folder; a role named by file name wins over sniffed copies."""
    named: dict[str, list[Path]] = {}
    sniffed: dict[str, list[Path]] = {}
    skipped: list[str] = []
    for p in sorted(folder.iterdir()):
        if not p.is_file():
            continue
        low = p.name.lower()
        if p.stat().st_size == 0:
            skipped.append(f"{p.name} (empty)")
            continue
        if low.endswith(".csv"):
            by_name = role_from_name(p)
            by_head = classify(read_header(p))
            role = by_head or by_name
            if role is None:
                continue
            (named if by_name == role else sniffed if by_name is None else named).setdefault(role, []).append(p)
        elif low == "trace_view.json" or (low.startswith("msprof") and low.endswith(".json")):
            named.setdefault("trace_view", []).append(p)
        elif low in ("communication.json", "communication_matrix.json"):
            named.setdefault(low[:-5], []).append(p)
        elif low.endswith(".json") and low.startswith(("trace", "timeline")) and looks_like_trace_view(p):
            sniffed.setdefault("trace_view", []).append(p)
    files = dict(sniffed)
    files.update(named)
    return files, skipped


_DATA_ROLES = ("kernel_details", "trace_view", "memory_record", "operator_memory", "npu_module_mem",
               "step_trace_time")


def _has_data(files: dict) -> bool:
    return any(files.get(r) for r in _DATA_ROLES)


def _find_db(folder: Path, pattern_prefixes=("ascend_pytorch_profiler", "ascend_mindspore_profiler", "msprof")):
    dbs = sorted(p for p in folder.glob("*.db") if p.name.lower().startswith(pattern_prefixes) and is_sqlite(p))
    return dbs[0] if dbs else None


def detect(path, prefer: str = "auto") -> Layout:
    """Resolve ``path`` to a Layout or raise TraceFormatError saying what was expected."""
    p = Path(path)
    if not p.exists():
        raise TraceFormatError(p, "", "an existing Ascend profiler folder or .db file", "no such file or folder")
    if p.is_file():
        return _detect_file(p)
    if p.name == OUTPUT_DIR:
        return _output_layout(p, p.parent, prefer)
    if (p / OUTPUT_DIR).is_dir():
        lay = _output_layout(p / OUTPUT_DIR, p, prefer, allow_empty=True)
        if lay is not None:
            return lay
    if p.name == MSPROF_DIR:
        files, skipped = scan_text(p)
        if not _has_data(files):
            raise TraceFormatError(p, "", "msprof exports (op_summary_*.csv, msprof_*.json, ...)",
                                   "no readable export found")
        return Layout("msprof-text", p, root=_run_root(p.parent), files=files, skipped=skipped)
    if p.name.startswith("PROF_") or (p / MSPROF_DIR).is_dir() or any(p.glob("msprof_*.db")):
        lay = _prof_layout(p, prefer)
        if lay is not None:
            return lay
    profs = sorted(q for q in p.glob("PROF_*") if q.is_dir())
    if profs and (p.name.endswith(("_ascend_pt", "_ascend_ms")) or any(p.glob("profiler_info*.json"))):
        for q in profs:
            lay = _prof_layout(q, prefer)
            if lay is not None:
                lay.path, lay.root = p, p
                return lay
    for folder in (p, p / "profiler"):
        if folder.is_dir() and any(_LEGACY_RE.match(q.name) for q in folder.iterdir()):
            files: dict[str, list[Path]] = {}
            for q in sorted(folder.iterdir()):
                m = _LEGACY_RE.match(q.name)
                if m:
                    files.setdefault(_legacy_role(m.group(1)), []).append(q)
            return Layout("mindspore-legacy", p, root=None, files=files)
    files, skipped = scan_text(p)  # a renamed / flattened output folder
    if _has_data(files):
        return Layout(f"{_framework(p)}-text", p, root=p, files=files, skipped=skipped)
    db = _find_db(p)
    if db is not None:
        return Layout(_db_kind(db), p, root=p, db=db, analysis_db=_analysis(p))
    listing = sorted(q.name for q in p.iterdir())[:8]
    runs = [q.name for q in sorted(p.iterdir()) if q.is_dir() and _is_run_dir(q)]
    detail = (f"it holds {len(runs)} runs ({', '.join(runs[:4])}{', ...' if len(runs) > 4 else ''}): import one, "
              "or all of them with the cluster import (find_ranks)") if runs else \
        (f"found {listing}" if listing else "the folder is empty")
    raise TraceFormatError(p, "", f"an Ascend profiler folder ({OUTPUT_DIR}/, *_ascend_pt, PROF_*/{MSPROF_DIR}, "
                           "ascend_pytorch_profiler_*.db or msprof_*.db)", detail)


def _legacy_role(stem: str) -> str:
    if stem.startswith("aicore_intermediate"):
        return "aicore_" + stem.rsplit("_", 1)[1]
    if stem.startswith("framework_raw"):
        return "framework_raw"
    return "step_trace_raw"


def _analysis(folder: Path) -> Path | None:
    for name in ("analysis.db", "communication_analyzer.db"):
        q = folder / name
        if q.is_file() and is_sqlite(q):
            return q
    return None


def _run_root(p: Path) -> Path | None:
    """The *_ascend_pt folder above a PROF_ folder, if any (for profiler_info.json)."""
    for q in (p, p.parent):
        if any(q.glob("profiler_info*.json")):
            return q
    return p


def _output_layout(out: Path, root: Path, prefer: str, allow_empty: bool = False) -> Layout | None:
    files, skipped = scan_text(out)
    db = _find_db(out, ("ascend_pytorch_profiler", "ascend_mindspore_profiler"))
    fw = _framework(root, db)
    text_ok = _has_data(files)
    if db is not None and (prefer != "text" or not text_ok):
        return Layout(_db_kind(db), out, root=root, db=db, analysis_db=_analysis(out), files=files,
                      skipped=skipped)
    if text_ok:
        return Layout(f"{fw}-text", out, root=root, files=files, skipped=skipped)
    profs = sorted(q for q in root.glob("PROF_*") if q.is_dir())
    for q in profs:
        lay = _prof_layout(q, prefer)
        if lay is not None:
            lay.root = root
            return lay
    if allow_empty:
        return None
    raise TraceFormatError(out, "", "torch_npu exports (kernel_details.csv, trace_view.json, "
                           "ascend_pytorch_profiler_*.db ...)",
                           "no readable export found" + (f"; skipped {skipped}" if skipped else ""))


def _prof_layout(prof: Path, prefer: str) -> Layout | None:
    db = _find_db(prof, ("msprof",))
    out = prof / MSPROF_DIR
    files, skipped = scan_text(out) if out.is_dir() else ({}, [])
    if db is not None and (prefer != "text" or not _has_data(files)):
        return Layout("msprof-db", prof, root=_run_root(prof.parent), db=db, files=files, skipped=skipped)
    if _has_data(files):
        return Layout("msprof-text", prof, root=_run_root(prof.parent), files=files, skipped=skipped)
    return None


def _detect_file(p: Path) -> Layout:
    low = p.name.lower()
    if low.endswith(".db") or is_sqlite(p):
        if not is_sqlite(p):
            raise TraceFormatError(p, "file header", "an SQLite database", "the file does not start with "
                                   "'SQLite format 3'")
        if low in ("analysis.db", "communication_analyzer.db"):
            raise TraceFormatError(p, "", "ascend_pytorch_profiler_*.db or msprof_*.db",
                                   f"{p.name} holds only cluster/communication summaries, not a timeline")
        root = p.parent.parent if p.parent.name == OUTPUT_DIR else p.parent
        return Layout(_db_kind(p), p, root=root, db=p, analysis_db=_analysis(p.parent))
    root = p.parent.parent if p.parent.name == OUTPUT_DIR else None
    if low.endswith(".json"):
        if looks_like_trace_view(p) or low == "trace_view.json" or low.startswith("msprof"):
            fmt = "msprof-text" if low.startswith("msprof") else f"{_framework(root)}-text"
            return Layout(fmt, p, root=root, files={"trace_view": [p]})
    if low.endswith(".csv"):
        role = classify(read_header(p)) or role_from_name(p)
        if role is not None:
            fmt = "msprof-text" if low.startswith("op_summary") else f"{_framework(root)}-text"
            return Layout(fmt, p, root=root, files={role: [p]})
    raise TraceFormatError(p, "", "an Ascend export (ascend_pytorch_profiler_*.db, msprof_*.db, trace_view.json, "
                           "kernel_details.csv / op_summary_*.csv)", "the file is none of these")


def is_ascend(path) -> bool:
    """True when ``path`` is something read_ascend accepts (never raises)."""
    try:
        detect(path)
        return True
    except (TraceFormatError, OSError, ValueError):
        return False


_RANK_DIR_RE = re.compile(r"rank[_-]?(\d+)", re.IGNORECASE)


def rank_of(folder: Path) -> int | None:
    """Rank of one run folder: profiler_info rank_id, its file name, the db name, then the folder name."""
    from .comm import load_json

    root = folder
    for info in sorted(root.glob("profiler_info*.json")):
        try:
            rid = load_json(info).get("rank_id")
            if rid is not None and str(rid).strip().lstrip("-").isdigit() and int(rid) >= 0:
                return int(rid)
        except (TraceFormatError, AttributeError):
            pass
        m = re.match(r"profiler_info_(\d+)\.json$", info.name)
        if m:
            return int(m.group(1))
    for db in sorted(root.glob(f"{OUTPUT_DIR}/ascend_*_profiler_*.db")):
        m = re.search(r"_(\d+)\.db$", db.name)
        if m:
            return int(m.group(1))
    m = _RANK_DIR_RE.search(folder.name)
    return int(m.group(1)) if m else None


def _is_run_dir(d: Path) -> bool:
    return (d.name.endswith(("_ascend_pt", "_ascend_ms")) or (d / OUTPUT_DIR).is_dir()
            or (d.name.startswith("PROF_") and ((d / MSPROF_DIR).is_dir() or any(d.glob("msprof_*.db")))))


def find_ranks(path, max_depth: int = 4) -> list[tuple[int, Path]]:
    """Run folders (one per rank) under a cluster folder, as ``(rank, path)`` sorted by rank.

    A run folder is a ``*_ascend_pt``/``*_ascend_ms`` folder, a folder holding ``ASCEND_PROFILER_OUTPUT``,
    or a ``PROF_*`` folder; folders inside a found run are not searched. The rank comes from
    profiler_info's ``rank_id`` (int or string), its file name, the db name, else a ``rank<N>`` folder
    name; runs that say nothing get the smallest ranks not taken, in path order. Duplicated ranks (the
    same rank profiled twice under one folder) are returned as found. ``path`` itself is returned
    when it is a single run.
    """
    base = Path(path)
    if not base.is_dir():
        return []
    found: list[Path] = []

    def walk(d: Path, depth: int):
        if _is_run_dir(d):
            if is_ascend(d):
                found.append(d)
            return
        if depth >= max_depth:
            return
        try:
            children = sorted(c for c in d.iterdir() if c.is_dir())
        except OSError:
            return
        for c in children:
            walk(c, depth + 1)

    walk(base, 0)
    ranked = [(rank_of(d), d) for d in found]
    taken = {r for r, _ in ranked if r is not None}
    free = (i for i in range(len(ranked) + len(taken) + 1) if i not in taken)
    ranked = [(r if r is not None else next(free), d) for r, d in ranked]
    return sorted(ranked, key=lambda rp: (rp[0], str(rp[1])))
