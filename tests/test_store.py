import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import cann_nb
from cann_nb.errors import StoreError, TraceFormatError
from cann_nb.model import Profile
from cann_nb.store import Session


def entries(root):
    """What is in a store root, but its lock file (which stays once a write took the lock)."""
    return sorted(e for e in os.listdir(root) if e != ".lock")


def make_profile(name="p", n=1000):
    rng = np.random.default_rng(0)
    return Profile(
        events={"name": rng.choice(["aten::mm", "aten::add", "<b>x</b>"], n), "cat": "op",
                "start_ns": np.arange(n) * 10, "dur_ns": rng.integers(1, 9, n), "shapes": "[[2, 3]]",
                "core_type": "AI_CORE"},
        memory={"ts_ns": [1, 2], "device": ["cpu", "cpu"], "delta_bytes": [8, -8], "allocated_bytes": [8, 0]},
        counters={"ts_ns": [0, 5], "source": "host", "metric": "rss", "value": [1e6, 2e6]},
        meta={"name": name, "t0_ns": 1_700_000_000_000_000_000, "nested": {"a": [1, 2]}},
    )


def test_round_trip_preserves_tables_dtypes_and_meta(tmp_path):
    p = make_profile()
    s = Session(tmp_path)
    assert s.add(p) == "p"
    # a new process reads it back, without the in-memory cache
    code = ("import cann_nb,sys; s=cann_nb.load_session(sys.argv[1]); p=s['p']; p.validate();"
            "print(len(p.events), p.events['name'].dtype, p.meta['t0_ns'], p.events['core_type'].iloc[0])")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1000", "category", "1700000000000000000", "AI_CORE"]
    q = Session(tmp_path)["p"]
    pd.testing.assert_frame_equal(q.events, p.events, check_categorical=False)
    pd.testing.assert_frame_equal(q.memory, p.memory, check_categorical=False)
    assert q.meta["nested"] == {"a": [1, 2]}


def test_files_are_plain_parquet_and_json(tmp_path):
    Session(tmp_path).add(make_profile())
    events = pd.read_parquet(tmp_path / "p" / "events.parquet")     # no cann_nb needed
    assert len(events) == 1000
    assert json.loads((tmp_path / "p" / "meta.json").read_text())["name"] == "p"


def test_reused_name_keeps_the_earlier_version(tmp_path):
    s = Session(tmp_path)
    s.add(make_profile(n=10))
    s.add(make_profile(n=20))
    s.add(make_profile(n=30))
    fresh = Session(tmp_path)
    assert fresh.names() == ["p"]
    assert sorted(fresh.names(versions=True)) == ["p", "p@1", "p@2"]
    assert len(fresh["p"].events) == 30 and fresh["p"].meta["version"] == 3
    assert len(fresh["p@1"].events) == 10
    listing = fresh.list(versions=True)
    assert set(listing["version"]) == {1, 2, 3}


def test_failed_write_leaves_store_unchanged(tmp_path, monkeypatch):
    s = Session(tmp_path)
    s.add(make_profile(n=10))
    before = entries(tmp_path)

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    with pytest.raises(StoreError, match="No space left.*unchanged"):
        s.add(make_profile(n=20))
    assert entries(tmp_path) == before          # no temp dir left, v1 intact
    assert len(Session(tmp_path)["p"].events) == 10


def test_interrupt_during_write_leaves_no_half_profile(tmp_path, monkeypatch):
    s = Session(tmp_path)
    import cann_nb.store as store_mod

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(store_mod.json, "dump", interrupted)
    with pytest.raises(KeyboardInterrupt):
        s.add(make_profile())
    assert entries(tmp_path) == []


def test_invalid_names_and_missing_profiles(tmp_path):
    s = Session(tmp_path)
    for bad in ["../x", "a/b", ".hidden", "x@1", "-x"]:
        with pytest.raises(ValueError, match="invalid profile name"):
            s.add(make_profile(), name=bad)
    with pytest.raises(KeyError, match="no profile 'nope'"):
        s["nope"]


def test_corrupt_files_give_trace_format_errors(tmp_path):
    Session(tmp_path).add(make_profile())
    (tmp_path / "p" / "events.parquet").write_bytes(b"PAR1 garbage")
    with pytest.raises(TraceFormatError, match="events.parquet"):
        Session(tmp_path)["p"]
    (tmp_path / "p" / "meta.json").write_text("{not json")
    with pytest.raises(TraceFormatError, match="meta.json"):
        cann_nb.load(tmp_path / "p")


def test_load_accepts_a_profile_directory(tmp_path):
    Session(tmp_path).add(make_profile())
    p = cann_nb.load(tmp_path / "p", name="renamed")
    assert p.name == "renamed" and len(p.events) == 1000


def test_groups_are_partitioned_by_rank(tmp_path):
    s = Session(tmp_path)
    profiles = {r: make_profile(name=f"r{r}", n=10 + r) for r in range(3)}
    s.add_group("cluster", profiles, {"world_size": 3})
    fresh = Session(tmp_path)
    group = fresh["cluster"]
    assert group.ranks == [0, 1, 2] and group.meta["world_size"] == 3
    assert len(group[2].events) == 12 and group[2].meta["rank"] == 2
    assert len(fresh["cluster/rank=1"].events) == 11
    # the on-disk layout is a Hive partitioning: plain pyarrow sees a rank column
    import pyarrow.dataset as ds

    files = sorted(str(p) for p in (tmp_path / "cluster").glob("rank=*/events.parquet"))
    table = ds.dataset(files, format="parquet", partitioning="hive", partition_base_dir=str(tmp_path / "cluster")).to_table()
    assert sorted(set(table.column("rank").to_pylist())) == [0, 1, 2]
    assert len(group.table("events")) == 33
    row = fresh.list().set_index("name").loc["cluster"]
    assert row["ranks"] == 3


def _slow_writes(monkeypatch, seconds=0.3):
    """The background writer's files take ``seconds`` longer: a read that did not wait would miss them."""
    import time

    import cann_nb.store as store_mod

    real = store_mod.write_profile_dir

    def slow(*a, **k):
        time.sleep(seconds)
        return real(*a, **k)

    monkeypatch.setattr(store_mod, "write_profile_dir", slow)


def test_background_add_returns_at_once_and_every_read_waits_for_it(tmp_path, monkeypatch):
    _slow_writes(monkeypatch)
    s = Session(tmp_path)
    p = make_profile(n=10)
    assert s.add(p, background=True) == "p"
    assert not (tmp_path / "p").exists()                      # still being written
    p.meta["annotated"] = list(range(1000))                   # the caller goes on using its meta
    assert "p" in Session(tmp_path)                           # another Session on the same root waits
    assert s.add(make_profile(n=20), background=True) == "p"  # second version, written after the first
    assert s.versions("p") == ["p@1", "p"]
    assert len(Session(tmp_path)["p@1"].events) == 10 and len(s["p"].events) == 20
    assert Session(tmp_path)["p@1"].meta["version"] == 1 and s["p"].meta["version"] == 2
    assert "annotated" not in json.loads((tmp_path / "p@1" / "meta.json").read_text())   # a snapshot was written
    assert not [t for t in __import__("threading").enumerate() if t.name == "cann_nb-store-writer"]


def test_background_write_failure_is_reported_and_leaves_the_store_unchanged(tmp_path, monkeypatch, capsys):
    s = Session(tmp_path)
    s.add(make_profile(n=10))

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    s.add(make_profile(n=20), background=True)
    s.flush()
    assert "No space left" in capsys.readouterr().err and "No space left" in s.write_errors[0]
    assert entries(tmp_path) == ["p"] and len(Session(tmp_path)["p"].events) == 10


def test_interpreter_exit_waits_for_a_queued_write(tmp_path):
    code = ("import sys, time, cann_nb.store as st; from tests.test_store import make_profile\n"
            "real = st.write_profile_dir\n"
            "st.write_profile_dir = lambda *a, **k: (time.sleep(0.5), real(*a, **k))\n"
            "st.Session(sys.argv[1]).add(make_profile(n=7), background=True)\n")   # and exit at once
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert len(Session(tmp_path)["p"].events) == 7
