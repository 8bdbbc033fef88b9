"""`cann-nb import` of a folder of ranks is streamed: each rank is read, written into the group's
``rank=K/`` and let go, so peak memory does not grow with the rank count; the group still appears whole
or not at all; `cluster` on a folder of ranks goes the same way (imported into the store first, said)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cann_nb.errors import TraceFormatError
from cann_nb.ingest.chrome_export import write_chrome_trace
from cann_nb.ingest.load import import_into_store
from cann_nb.store import Session
from tests.analyze.synth_cluster import cluster_job

ROOT = Path(__file__).resolve().parents[2]
MAX_GROWTH_PER_RANK = 256 * 1024   # bytes of peak RSS per extra rank; one rank here is ~1 MiB in memory

# peak RSS of a fresh process importing FOLDER into STORE: streamed (cann-nb import's path) or held (every
# rank loaded first, then stored: what the import did before, as the control that the measure can see growth)
CHILD = """
import sys
from cann_nb.ingest.load import import_into_store, load
from cann_nb.store import Session
folder, store, mode = sys.argv[1:4]
if mode == "stream":
    import_into_store(folder, Session(store), workers=1, progress=False)
else:
    g = load(folder, workers=1, progress=False)
    Session(store).add_group("held", {r: g[r] for r in g.ranks}, g.meta)
# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a big
# pytest process would report its parent's size
print(next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:")))
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """32 rank traces of ~15k events each (one synthetic rank written 32 times), and the first 8 of them."""
    root = tmp_path_factory.mktemp("ranks")
    profiles, _ = cluster_job(n_ranks=2, steps=40, kernels=120, straggler=1)
    big, small = root / "r32", root / "r8"
    big.mkdir()
    small.mkdir()
    data = write_chrome_trace(profiles[0], big / "rank_0.json").read_bytes()
    for r in range(32):
        (big / f"rank_{r}.json").write_bytes(data)
        if r < 8:
            (small / f"rank_{r}.json").symlink_to(big / f"rank_{r}.json")
    return small, big


def peak_rss(folder: Path, store: Path, mode: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(store), mode], env=env, check=True,
                         capture_output=True, text=True, timeout=300)
    return int(out.stdout.split()[-1])


def test_peak_memory_does_not_grow_with_the_rank_count(folders, tmp_path):
    small, big = folders
    s8 = peak_rss(small, tmp_path / "s8", "stream")
    s32 = peak_rss(big, tmp_path / "s32", "stream")
    held32 = peak_rss(big, tmp_path / "h32", "held")
    per_rank = (s32 - s8) / 24
    print(f"peak RSS streamed: 8 ranks {s8 / 2**20:.1f} MiB, 32 ranks {s32 / 2**20:.1f} MiB "
          f"({per_rank / 1024:+.0f} KiB per extra rank); every rank held: {held32 / 2**20:.1f} MiB")
    assert per_rank < MAX_GROWTH_PER_RANK
    assert held32 - s32 > 24 * MAX_GROWTH_PER_RANK   # holding the ranks would have shown
    group = Session(tmp_path / "s32")["r32"]
    assert group.ranks == list(range(32)) and group.meta["counts"]["events"] == 32 * len(group[0].events)


def test_parallel_stream_stores_the_whole_group(folders, tmp_path):
    _, big = folders
    group = import_into_store(big, Session(tmp_path), "dp", workers=2, progress=False)
    assert group.ranks == list(range(32)) and group.meta["world_size"] == 32 and group.meta["version"] == 1
    for r in (0, 17, 31):
        meta = json.loads((tmp_path / "dp" / f"rank={r}" / "meta.json").read_text())
        assert (meta["rank"], meta["world_size"], meta["version"], meta["name"]) == (r, 32, 1, f"dp/rank={r}")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_a_bad_rank_leaves_the_store_as_it_was(folders, tmp_path):
    small, _ = folders
    bad = tmp_path / "bad"
    bad.mkdir()
    for r in range(8):
        (bad / f"rank_{r}.json").symlink_to(small / f"rank_{r}.json")
    (bad / "rank_8.json").write_text('{"traceEvents": [{"ph": "X", "name": ')   # cut short
    store = Session(tmp_path / "store")
    with pytest.raises(TraceFormatError, match="rank_8.json"):
        import_into_store(bad, store, "g", workers=1, progress=False)
    assert "g" not in store and not [p for p in store.root.iterdir() if p.name.startswith(".tmp-")]


def test_cluster_on_a_folder_of_ranks_imports_it_first(tmp_path, capsys):
    import cann_nb

    profiles, _ = cluster_job(n_ranks=6, steps=5, kernels=6, straggler=3)
    folder = tmp_path / "job"
    folder.mkdir()
    for r, p in profiles.items():
        write_chrome_trace(p, folder / f"rank_{r}.json")
    res = cann_nb.cluster(folder, store=tmp_path / "store")
    err = capsys.readouterr().err
    assert "importing the ranks of" in err and "cann-nb cluster job" in err
    assert res.straggler_ranks == [3] and res.group["path"] == str((tmp_path / "store" / "job").resolve())
