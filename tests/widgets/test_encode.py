"""The binary payload: exact round trip, row layout the front end relies on, links, limits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cann_nb.model import Profile
from cann_nb.widgets._encode import decode, encode_events

from .synth import HOSTILE, synthetic_profile


@pytest.fixture(scope="module")
def prof():
    return synthetic_profile(20_000)


@pytest.fixture(scope="module")
def enc(prof):
    return encode_events(prof.events, prof.memory, prof.counters)


def test_columns_round_trip_every_event(prof, enc):
    p = enc.payload
    ev = prof.events.set_index("id").loc[enc.ids]
    assert p["n"] == len(prof.events)
    np.testing.assert_array_equal(decode(p["cols"]["start"]), ev["start_ns"].to_numpy())
    np.testing.assert_allclose(decode(p["cols"]["dur"]), ev["dur_ns"].to_numpy(), rtol=1e-6)
    names = np.asarray(p["dicts"]["name"], dtype=object)[decode(p["cols"]["name"])]
    assert (names == ev["name"].astype(str).to_numpy()).all()
    cats = np.asarray(p["dicts"]["cat"], dtype=object)[decode(p["cols"]["cat"])]
    assert (cats == ev["cat"].astype(str).to_numpy()).all()
    assert HOSTILE in p["dicts"]["name"]  # a string, shipped once, never markup


def test_rows_are_contiguous_start_sorted_lane_depth_blocks(enc):
    p = enc.payload
    start = decode(p["cols"]["start"])
    rows = p["rows"]
    assert rows["lo"][0] == 0 and rows["hi"][-1] == p["n"]
    assert all(a == b for a, b in zip(rows["hi"][:-1], rows["lo"][1:]))
    for lo, hi in zip(rows["lo"], rows["hi"]):
        assert (np.diff(start[lo:hi]) >= 0).all()
    keys = list(zip(rows["lane"], rows["depth"]))
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    lanes = [lane["name"] for lane in p["lanes"]]
    assert lanes == ["host/thread 1", "host/thread 2", "cuda:0/stream 7", "cuda:0/stream 8"]


def test_parent_is_a_row_index_and_flows_link_launch_to_kernel(prof, enc):
    p = enc.payload
    parent = decode(p["cols"]["parent"])
    ev = prof.events.set_index("id")
    want = ev.loc[enc.ids, "parent"].to_numpy()
    has = want >= 0
    np.testing.assert_array_equal(enc.ids[parent[has]], want[has])
    assert (parent[~has] == -1).all()
    src, dst = decode(p["flows"]["src"]), decode(p["flows"]["dst"])
    assert len(src) == len(prof.events) // 10 * 3
    names = np.asarray(p["dicts"]["name"], dtype=object)[decode(p["cols"]["name"])]
    assert set(names[src]) == {"cudaLaunchKernel"}
    corr = ev.loc[enc.ids, "corr"].to_numpy()
    np.testing.assert_array_equal(corr[src], corr[dst])


def test_ids_map_to_rows(prof, enc):
    ids = prof.events["id"].to_numpy()[[5, 17, 999]]
    rows = enc.rows_for_ids(list(ids) + [10**12])
    assert sorted(enc.ids[rows]) == sorted(ids)


def test_shipped_bytes_per_event_under_goal():
    prof = synthetic_profile(100_000)
    p = encode_events(prof.events, prof.memory, prof.counters).payload
    shipped = sum(len(c["z"]) for c in p["cols"].values()) + sum(len(c["z"]) for c in p["flows"].values())
    assert shipped / p["n"] < 24


def test_max_events_keeps_the_longest_and_says_so(prof):
    enc = encode_events(prof.events, max_events=5_000)
    p = enc.payload
    assert p["n"] == 5_000 and p["hidden"] == len(prof.events) - 5_000
    dur = decode(p["cols"]["dur"])
    assert dur.min() >= p["hidden_below_ns"]


def test_counters_keep_the_peak_when_decimated():
    n = 200_000
    ts = np.arange(n, dtype=np.int64) * 1000
    alloc = np.full(n, 1.0e6)
    alloc[123_457] = 9.9e9
    prof = Profile(events={"name": ["x"], "cat": ["op"], "start_ns": [0], "dur_ns": [n * 1000]},
                   memory={"ts_ns": ts, "device": ["cuda:0"] * n, "allocated_bytes": alloc})
    series = encode_events(prof.events, prof.memory, prof.counters).payload["counters"]
    assert len(series) == 1
    s = series[0]
    assert s["group"] == "cuda:0" and s["n_raw"] == n
    val = decode(s["val"])
    assert len(val) <= 20_000 and val.max() == pytest.approx(9.9e9)
    assert s["peak"] == [123_457 * 1000, 9.9e9] or tuple(s["peak"]) == (123_457 * 1000, 9.9e9)


def test_empty_profile_encodes():
    p = encode_events(Profile().events).payload
    assert p["n"] == 0 and p["rows"]["lo"] == [] and p["extent"][1] > p["extent"][0]


def test_events_without_track_or_optional_columns():
    ev = pd.DataFrame({"name": ["a", "b"], "cat": ["op", "op"], "start_ns": [0, 10], "dur_ns": [5, 5]})
    p = encode_events(Profile(events=ev).events).payload
    assert [lane["name"] for lane in p["lanes"]] == ["main"]
    assert "shapes" not in p["cols"] and "module" not in p["cols"]


def test_flat_counter_series_are_not_lanes():
    p = Profile(events={"name": ["a"], "cat": "op", "start_ns": [0], "dur_ns": [100]},
                counters={"ts_ns": [0, 50, 100] * 2, "source": "npu:0", "metric": ["module_mem"] * 3 + ["hbm"] * 3,
                          "value": [7.0, 7.0, 7.0, 1.0, 5.0, 2.0]})
    payload = encode_events(p.events, p.memory, p.counters).payload
    assert [s["label"] for s in payload["counters"]] == ["hbm"] and payload["flat_counters"] == 1
