"""Fault injection for the store: whatever happens during a write (a kill -9 at any step, a full disk,
a denied directory, a Ctrl-C, other writers at the same time, damaged files), the store keeps every
profile it said it stored, says so for nothing else, and finds its profiles afterwards."""

import errno
import json
import multiprocessing
import os
import pathlib
import random
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import cann_nb
import cann_nb.store as store
from cann_nb.errors import StoreError, TraceFormatError
from cann_nb.store import Session
from tests.test_store import entries, make_profile

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the named points of a write, in order (store._step); a crash before "new-renamed" keeps the old version
STEPS = ["tmp-created", "tables-written", "locked", "meta-written", "old-renamed", "new-renamed"]
LONG_AGO = time.time() - 2 * store.ORPHAN_GRACE_S


def events_of(root, name):
    return len(Session(root)[name].events)


def assert_consistent(root, name="p"):
    """Every listed profile reads, is ok, and each version's meta names the version it is stored as."""
    s = Session(root)
    listing = s.list(versions=True)
    assert (listing["status"] == "ok").all(), listing
    versions = s.versions(name)
    numbers = [s[v].meta["version"] for v in versions]
    assert numbers == sorted(set(numbers))                              # distinct, oldest first
    for v, k in zip(versions[:-1], numbers):
        assert v == f"{name}@{k}"
    return numbers


# -- kill -9 at each step of a write -------------------------------------------------------------

KILL_AT = """
import os, sys, cann_nb.store as st
from tests.test_store import make_profile
root, point, group = sys.argv[1], sys.argv[2], sys.argv[3] == "group"
if sys.argv[4] == "no-flock":
    st.fcntl = None                       # the mkdir lock
st._step = lambda p: os.kill(os.getpid(), 9) if p == point else None
s = st.Session(root)
if group:
    s.add_group("p", {0: make_profile(n=20), 1: make_profile(n=20)})
else:
    s.add(make_profile(n=20), "p")
"""


def kill_writer_at(root, point, group=False, lock="flock"):
    proc = subprocess.run([sys.executable, "-c", KILL_AT, str(root), point, "group" if group else "one", lock],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


@pytest.mark.parametrize("point", STEPS)
def test_a_writer_killed_at_any_step_leaves_a_store_that_finds_its_profiles(tmp_path, point):
    Session(tmp_path).add(make_profile(n=10), "p")
    kill_writer_at(tmp_path, point)
    survived = 20 if point == "new-renamed" else 10       # the rename into place is the commit
    s = Session(tmp_path)
    assert s.names() == ["p"] and "p" in s and events_of(tmp_path, "p") == survived
    assert (s.list()["status"] == "ok").all()

    # the next write repairs what the crash left and removes the dead writer's temp dir
    for tmp in tmp_path.glob(".tmp-*"):
        os.utime(tmp, (LONG_AGO, LONG_AGO))
    s.add(make_profile(n=30), "p")
    if point == "old-renamed":
        assert any("restored p@1 as p" in r for r in s.repairs)
    if point != "new-renamed":
        assert any(".tmp-p-" in r and "removed" in r for r in s.repairs)
    assert not list(tmp_path.glob(".tmp-*"))
    assert events_of(tmp_path, "p") == 30
    assert assert_consistent(tmp_path) == ([1, 2, 3] if point == "new-renamed" else [1, 2])


def test_a_group_write_killed_between_its_renames_still_finds_the_group(tmp_path):
    Session(tmp_path).add_group("p", {0: make_profile(n=10)})
    kill_writer_at(tmp_path, "old-renamed", group=True)
    s = Session(tmp_path)
    assert s.names() == ["p"] and s["p"].ranks == [0] and len(s["p/rank=0"].events) == 10
    assert s.list().loc[0, "ranks"] == 1
    assert s.repair() and sorted(entries(tmp_path))[-1] == "p"


def test_a_writer_killed_holding_the_fallback_lock_does_not_block_the_next(tmp_path, monkeypatch):
    """Where there is no flock, the mkdir lock of a dead writer (same machine) is broken, not waited on."""
    Session(tmp_path).add(make_profile(n=10), "p")
    kill_writer_at(tmp_path, "locked", lock="no-flock")
    assert (tmp_path / ".lock.d").is_dir()                 # left behind by the dead writer
    monkeypatch.setattr(store, "fcntl", None)
    Session(tmp_path).add(make_profile(n=30), "p")
    assert not (tmp_path / ".lock.d").exists() and events_of(tmp_path, "p") == 30


WRITE_FOREVER = """
import sys, cann_nb.store as st
from tests.test_store import make_profile
s = st.Session(sys.argv[1])
p = make_profile(n=200_000)
print("ready", flush=True)
while True:
    s.add(p, "p")
"""


def test_writers_killed_at_random_moments_never_leave_a_broken_store(tmp_path):
    Session(tmp_path).add(make_profile(n=10), "p")
    rng = random.Random(14)
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", WRITE_FOREVER, str(tmp_path)], cwd=ROOT,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.05, 1.5))                 # only to vary where the kill lands
        proc.kill()
        proc.wait(timeout=60)
        proc.stdout.close()
        assert "p" in Session(tmp_path)
        assert_consistent(tmp_path)
    Session(tmp_path).repair(grace_s=0)                    # the dead writers' temp dirs go
    assert not list(tmp_path.glob(".tmp-*"))
    assert_consistent(tmp_path)


# -- Ctrl-C, full disk, denied directory ---------------------------------------------------------

@pytest.mark.parametrize("point", STEPS)
def test_ctrl_c_at_any_step_leaves_the_store_as_it_was(tmp_path, monkeypatch, point):
    s = Session(tmp_path)
    s.add(make_profile(n=10), "p")
    before = entries(tmp_path)

    def interrupt(p):
        if p == point:
            raise KeyboardInterrupt

    monkeypatch.setattr(store, "_step", interrupt)
    with pytest.raises(KeyboardInterrupt):
        s.add(make_profile(n=20), "p")
    assert entries(tmp_path) == before and events_of(tmp_path, "p") == 10
    monkeypatch.undo()
    s.add(make_profile(n=30), "p")                         # the lock was released
    assert assert_consistent(tmp_path) == [1, 2]


def disk_full(*a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")


def fail_on_tmp(real, err):
    """``real`` (os.rename, Path.mkdir ...) that fails with ``err`` when its first path is a temp dir."""
    def fake(path, *a, **k):
        if os.path.basename(path).startswith(".tmp-p-"):
            raise OSError(err, os.strerror(err), str(path))
        return real(path, *a, **k)
    return fake


@pytest.mark.parametrize("where", ["parquet", "rename", "fsync"])
def test_a_full_disk_raises_a_store_error_and_changes_nothing(tmp_path, monkeypatch, where):
    s = Session(tmp_path)
    s.add(make_profile(n=10), "p")
    before = entries(tmp_path)
    if where == "parquet":
        monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    elif where == "rename":                                # the commit: tmp -> p, after p -> p@1
        monkeypatch.setattr(os, "rename", fail_on_tmp(os.rename, errno.ENOSPC))
    else:                                                  # fsync of the root after both renames
        real = store._fsync_dir
        monkeypatch.setattr(store, "_fsync_dir", lambda d: disk_full() if d == tmp_path else real(d))
    with pytest.raises(StoreError) as info:
        s.add(make_profile(n=20), "p")
    err = info.value
    assert err.errno == errno.ENOSPC and "'p'" in str(err) and str(tmp_path / "p") in str(err)
    assert "No space left" in str(err) and "unchanged" in str(err)
    assert entries(tmp_path) == before and events_of(tmp_path, "p") == 10


def test_a_denied_directory_raises_a_store_error_naming_it(tmp_path, monkeypatch):
    s = Session(tmp_path)
    s.add(make_profile(n=10), "p")
    before = entries(tmp_path)
    if os.geteuid() == 0:                                  # root ignores permissions: deny by hand
        monkeypatch.setattr(pathlib.Path, "mkdir", fail_on_tmp(pathlib.Path.mkdir, errno.EACCES))
    else:
        tmp_path.chmod(0o555)
    try:
        with pytest.raises(StoreError) as info:
            s.add(make_profile(n=20), "p")
    finally:
        tmp_path.chmod(0o755)
    assert info.value.errno == errno.EACCES and "Permission denied" in str(info.value)
    assert "'p'" in str(info.value) and str(tmp_path) in str(info.value)
    assert entries(tmp_path) == before and events_of(tmp_path, "p") == 10


def test_a_directory_that_is_not_a_profile_is_never_replaced(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a cann_nb profile"):
        Session(tmp_path).add(make_profile(), "p")
    assert os.listdir(tmp_path / "p") == ["notes.txt"] and not list(tmp_path.glob(".tmp-*"))


# -- concurrent writers ---------------------------------------------------------------------------

def _add_three(root, writer, barrier):
    barrier.wait()
    s = Session(root)
    for i in range(3):
        p = make_profile(n=5)
        p.meta["writer"] = f"{writer}.{i}"
        s.add(p, "same")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
@pytest.mark.parametrize("lock", ["flock", "mkdir"])
def test_concurrent_writers_across_processes_keep_every_profile(tmp_path, monkeypatch, lock):
    if lock == "mkdir":
        monkeypatch.setattr(store, "fcntl", None)          # inherited by the forked writers
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(8)
    procs = [ctx.Process(target=_add_three, args=(tmp_path, w, barrier)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
    assert [p.exitcode for p in procs] == [0] * 8
    s = Session(tmp_path)
    assert assert_consistent(tmp_path, "same") == list(range(1, 25))
    writers = {s[v].meta["writer"] for v in s.versions("same")}
    assert writers == {f"{w}.{i}" for w in range(8) for i in range(3)}
    assert not list(tmp_path.glob(".tmp-*")) and not (tmp_path / ".lock.d").exists()


def test_concurrent_sessions_in_threads_keep_every_profile(tmp_path):
    import threading

    sessions = [Session(tmp_path) for _ in range(4)]

    def add(s):
        for _ in range(3):
            s.add(make_profile(n=5), "same", background=True)
        s.flush()

    threads = [threading.Thread(target=add, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not any(s.write_errors for s in sessions)
    assert assert_consistent(tmp_path, "same") == list(range(1, 13))


# -- recovery ---------------------------------------------------------------------------------------

def test_an_interrupted_rename_still_finds_the_newest_version_and_is_repaired(tmp_path):
    s = Session(tmp_path)
    s.add(make_profile(n=10), "base")
    s.add(make_profile(n=20), "base")
    os.rename(tmp_path / "base", tmp_path / "base@2")     # as a crash between the two renames leaves it
    fresh = cann_nb.load_session(tmp_path)
    assert fresh.names() == ["base"] and "base" in fresh and len(fresh["base"].events) == 20
    assert fresh.locate("base") == tmp_path / "base@2" and fresh.locate("nope") is None
    row = fresh.list().iloc[0]
    assert row["name"] == "base" and row["status"] == "ok" and row["path"] == str(tmp_path / "base@2")
    assert fresh.versions("base") == ["base@1", "base@2"]
    fresh.add(make_profile(n=30), "base")
    assert fresh.repairs == [f"cann_nb: store {tmp_path}: restored base@2 as base "
                             "(a write was interrupted between its two renames)"]
    assert fresh.versions("base") == ["base@1", "base@2", "base"] and len(fresh["base@2"].events) == 20
    assert assert_consistent(tmp_path, "base") == [1, 2, 3]


def test_orphan_temp_dirs_are_removed_after_the_grace_period_unless_a_live_writer_holds_them(tmp_path):
    s = Session(tmp_path)
    s.add(make_profile(n=10), "p")
    old, young, held, trash = (tmp_path / n for n in (".tmp-p-old", ".tmp-p-young", ".tmp-p-held", ".tmp-del-x"))
    for d in (old, young, held, trash):
        d.mkdir()
        (d / "events.parquet").write_bytes(b"half")
    claim = store._claim(held)                             # as a live writer holds its temp dir
    for d in (old, held, trash):
        os.utime(d, (LONG_AGO, LONG_AGO))
    try:
        s.add(make_profile(n=20), "p")
        assert sorted(p.name for p in tmp_path.glob(".tmp-*")) == [".tmp-p-held", ".tmp-p-young"]
        assert len(s.repairs) == 2 and all("removed .tmp-" in r for r in s.repairs)
    finally:
        store._release(held, claim)
    assert s.repair(grace_s=0) and not list(tmp_path.glob(".tmp-*"))
    assert events_of(tmp_path, "p") == 20


def test_remove_takes_every_version_of_a_name(tmp_path):
    s = Session(tmp_path)
    for n in (10, 20):
        s.add(make_profile(n=n), "p")
    s.add(make_profile(n=5), "q")
    s.remove("q")
    assert s.names(versions=True) == ["p@1", "p"]
    s.remove("p")
    assert s.names(versions=True) == [] and "p" not in s


# -- damaged files ----------------------------------------------------------------------------------

BAD_META = {"array": "[1, 2]", "null": "null", "counts-null": '{"counts": null, "wall_ns": "x"}',
            "not-json": "{oops"}


def test_damaged_profiles_are_listed_and_flagged_and_never_hide_the_others(tmp_path):
    s = Session(tmp_path)
    for name in ["good", *BAD_META, "truncated", "missing", "group"]:
        if name == "group":
            s.add_group(name, {0: make_profile(n=3), 1: make_profile(n=4)})
        else:
            s.add(make_profile(n=7), name)
    for name, text in BAD_META.items():
        (tmp_path / name / "meta.json").write_text(text)
    events = tmp_path / "truncated" / "events.parquet"
    events.write_bytes(events.read_bytes()[:100])
    (tmp_path / "missing" / "counters.parquet").unlink()
    (tmp_path / "group" / "rank=1" / "memory.parquet").write_bytes(b"")

    listing = Session(tmp_path).list().set_index("name")
    assert sorted(listing.index) == sorted(["good", *BAD_META, "truncated", "missing", "group"])
    status = listing["status"]
    assert status["good"] == "ok" and status["counts-null"] == "ok"     # an odd field is not damage
    assert status["array"] == "broken: meta.json: not a JSON object (an array)"
    assert status["null"] == "broken: meta.json: not a JSON object (null)"
    assert status["not-json"].startswith("broken: meta.json: not valid JSON")
    assert status["truncated"].startswith("broken: events.parquet: not a readable Parquet file")
    assert status["missing"] == "broken: counters.parquet: missing"
    assert status["group"].startswith("broken: rank=1/memory.parquet: not a readable Parquet file")
    assert str(listing["events"].dtype) == "Int64" and str(listing["version"].dtype) == "Int64"
    assert listing.loc["good", "events"] == 7 and listing.loc["counts-null", "events"] == 7
    assert pd.isna(listing.loc["truncated", "events"])
    assert listing["path"].notna().all() and listing.loc["array", "path"] == str(tmp_path / "array")
    # opening a damaged one names the file
    with pytest.raises(TraceFormatError, match="meta.json"):
        Session(tmp_path)["array"]
    with pytest.raises(TraceFormatError, match="events.parquet"):
        Session(tmp_path)["truncated"]
    (tmp_path / "group" / "group.json").write_text("[]")
    with pytest.raises(TraceFormatError, match="group.json"):
        Session(tmp_path)["group"]
    assert Session(tmp_path).list().set_index("name").loc["group", "status"] == \
        "broken: group.json: not a JSON object (an array)"


def test_list_reads_counts_from_the_parquet_footer_not_from_meta(tmp_path):
    Session(tmp_path).add(make_profile(n=12), "p")
    meta = json.loads((tmp_path / "p" / "meta.json").read_text())
    meta["counts"]["events"] = 999
    (tmp_path / "p" / "meta.json").write_text(json.dumps(meta))
    assert Session(tmp_path).list().loc[0, "events"] == 12
