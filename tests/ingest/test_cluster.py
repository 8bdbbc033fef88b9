"""Folders of ranks import as groups, one profile per rank, in parallel processes."""

from __future__ import annotations

import subprocess
import sys

import pytest

import cann_nb
from cann_nb.errors import TraceFormatError
from cann_nb.ingest.cluster import find_ranks
from cann_nb.store import ProfileGroup
from tests.conftest import ASCEND_L1

DLRM = "param/et_replay/tests/inputs/dlrm_kineto_extracted"


def test_kineto_ranks_come_from_distributed_info(real_data):
    ranks = find_ranks(real_data / DLRM)
    assert [r for r, _ in ranks] == list(range(8))
    assert all(f"worker{r}_" in p.name for r, p in ranks)


def test_dlrm_eight_ranks_import_in_parallel_and_store_partitioned(real_data, tmp_path):
    group = cann_nb.load(real_data / DLRM, workers=2, progress=False)
    assert isinstance(group, ProfileGroup) and group.ranks == list(range(8))
    for rank in group.ranks:
        p = group[rank]
        p.validate()
        assert p.meta["rank"] == rank and p.meta["world_size"] == 8
        assert (p.events["cat"] == "kernel").any()
    # the same through the CLI, stored as a Hive-partitioned group
    out = tmp_path / "store"
    r = subprocess.run([sys.executable, "-m", "cann_nb", "import", str(real_data / DLRM), "-o", str(out),
                        "-n", "dlrm", "--quiet"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    stored = cann_nb.load_session(out)["dlrm"]
    assert stored.ranks == list(range(8))
    events = stored.table("events")
    assert set(events["rank"]) == set(range(8))
    assert len(events) == sum(len(group[r].events) for r in group.ranks)
    assert len(list((out / "dlrm").glob("rank=*/events.parquet"))) == 8


def test_ascend_rank_folders_import_as_a_group(real_data):
    group = cann_nb.load(real_data / ASCEND_L1, workers=1, progress=False)
    assert isinstance(group, ProfileGroup) and group.ranks == [0, 1]
    for rank in group.ranks:
        assert group[rank].meta["rank"] == rank
        assert group[rank].events["device"].astype(str).str.startswith("npu:").any()


def test_one_ascend_run_folder_is_one_profile_not_a_cluster(real_data):
    # *_ascend_pt holds profiler_info_N.json and profiler_metadata.json: not two Kineto ranks
    run = real_data / ASCEND_L1 / "rank0_ascend_pt"
    assert find_ranks(run) == []
    p = cann_nb.load(run, progress=False)
    assert isinstance(p, cann_nb.Profile) and p.meta["rank"] == 0
    # what %cann_load displays: collectors follow DESIGN.md (name -> {status, ...})
    assert p.meta["collectors"]["ascend"]["status"] == "ok"
    bundle = p._repr_mimebundle_()
    assert "rank0_ascend_pt" in bundle["text/plain"] and "ascend" in bundle["text/plain"]


def test_a_broken_rank_names_its_file(real_data, tmp_path):
    import shutil

    src = sorted((real_data / DLRM).glob("*.json.gz"))[:2]
    for f in src:
        shutil.copy(f, tmp_path / f.name)
    broken = tmp_path / src[1].name
    broken.write_bytes(broken.read_bytes()[:5000])  # truncated gzip
    with pytest.raises(TraceFormatError) as err:
        cann_nb.load(tmp_path, workers=2, progress=False)
    assert src[1].name in str(err.value)


def test_empty_or_unrelated_folders_are_clear_errors(tmp_path):
    with pytest.raises(TraceFormatError, match="found none"):
        cann_nb.load(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(TraceFormatError):
        cann_nb.load(tmp_path / "notes.txt")
