"""The one resolver of what a user typed (ingest/load.py ``resolve``): a Profile, a path, NAME, NAME@k,
GROUP/rank=N; a group or a store where one profile is needed; nothing found."""

from __future__ import annotations

import gzip
import json

import pytest

from cann_nb.errors import CannNbError, NotOneProfile, ProfileNotFound
from cann_nb.ingest.load import import_into_store, resolve, store_root
from cann_nb.store import ProfileGroup, Session

from tests.synth_steps import stepped

OPS = {"aten::mm": 1_000_000, "aten::add": 200_000}


@pytest.fixture
def store(tmp_path):
    s = Session(tmp_path / "s")
    s.add(stepped(OPS, name="v1"))
    s.add(stepped(OPS, name="v1", seed=3))                  # v1@1 (version 1) and v1 (version 2)
    s.add_group("cluster", {0: stepped(OPS, name="r0"), 1: stepped(OPS, name="r1", seed=1)})
    return s


def test_a_profile_is_returned_as_is():
    p = stepped(OPS)
    assert resolve(p) is p and store_root(p) is None


def test_names_and_versions_in_the_store(store):
    latest, first = resolve("v1", store), resolve("v1@1", store.root)   # a Session or its directory
    assert latest.meta["version"] == 2 and first.meta["version"] == 1
    assert store_root(latest).resolve() == store.root.resolve() == store_root(first).resolve()


def test_the_default_store_is_cann_nb_dir(store, monkeypatch):
    monkeypatch.setenv("CANN_NB_DIR", str(store.root))
    assert resolve("v1").meta["version"] == 2


def test_paths_profile_directories_and_traces(store, tmp_path):
    p = resolve(str(store.path("v1@1")))
    assert p.meta["version"] == 1 and store_root(p).resolve() == store.root.resolve()
    trace = tmp_path / "t.json.gz"
    with gzip.open(trace, "wt") as fh:
        json.dump({"traceEvents": [{"ph": "X", "name": "aten::mm", "cat": "cpu_op", "pid": 1, "tid": 1,
                                    "ts": 0, "dur": 5}]}, fh)
    imported = resolve(trace)
    assert "aten::mm" in set(imported.events["name"].astype(str)) and store_root(imported) is None


def test_a_rank_of_a_group_by_name_or_path(store):
    by_name = resolve("cluster/rank=1", store)
    by_path = resolve(store.path("cluster") / "rank=0")
    assert by_name.meta["rank"] == 1 and by_path.meta["rank"] == 0
    assert store_root(by_name).resolve() == store.root.resolve() == store_root(by_path).resolve()
    with pytest.raises(ProfileNotFound, match=r"group 'cluster' has no rank 7 \(ranks: 0, 1\)"):
        resolve("cluster/rank=7", store)


def test_a_group_where_one_profile_is_needed(store):
    with pytest.raises(NotOneProfile, match=r"'cluster' is a group of 2 ranks; give one rank, e.g. cluster/rank=0"):
        resolve("cluster", store)
    with pytest.raises(NotOneProfile, match="rank=0"):
        resolve(store.path("cluster"))
    assert isinstance(resolve("cluster", store, group_ok=True), ProfileGroup)


def test_a_store_directory_where_one_profile_is_needed(store):
    with pytest.raises(NotOneProfile, match=r"is a store with 2 profiles \(v1, cluster\); give one of them"):
        resolve(store.root)


def test_not_found_names_what_was_typed_the_store_and_its_names(store):
    with pytest.raises(ProfileNotFound) as info:
        resolve("nope", store)
    msg = str(info.value)
    assert msg == (f"no profile 'nope': not a file or folder, and not a name in the store {store.root} "
                   "(stored: v1, cluster)")
    assert isinstance(info.value, CannNbError) and isinstance(info.value, LookupError)
    assert info.value.stored == ["v1", "cluster"]
    with pytest.raises(ProfileNotFound, match=r"stored: v1@1, v1, cluster"):    # NAME@k: the versions too
        resolve("v1@5", store)
    with pytest.raises(ProfileNotFound, match="not a name in the store"):       # never outside the store
        resolve("../s/v1", store)
    with pytest.raises(TypeError, match="cannot resolve a int"):
        resolve(3, store)


def test_import_into_store_names_and_stores(store, tmp_path):
    src = Session(tmp_path / "other")
    src.add(stepped(OPS, name="elsewhere"))
    p = import_into_store(src.path("elsewhere"), store, progress=False)
    assert p.name == "elsewhere" and "elsewhere" in store and store_root(p).resolve() == store.root.resolve()
    g = import_into_store(store.path("cluster"), store, "copy", progress=False)
    assert isinstance(g, ProfileGroup) and g.ranks == [0, 1] and "copy/rank=1" in store


def test_a_name_left_only_as_name_at_k_by_an_interrupted_write_is_read_from_there(store):
    """A crash between a write's two renames leaves NAME@k and no NAME: stored_at is where it is read
    from (Session.locate), so store_root and everything that opens stored_at finds the files."""
    import shutil

    shutil.rmtree(store.path("v1"))                       # as if killed after NAME -> NAME@k
    fresh = Session(store.root)
    p = resolve("v1", fresh)
    assert p.meta["version"] == 1
    assert p.meta["stored_at"] == str(store.path("v1@1").resolve())
    assert store_root(p).resolve() == store.root.resolve()
