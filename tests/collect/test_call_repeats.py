"""collect/call_repeats.py: fingerprints of values, and the Python tracer's record of long calls repeated
with the same arguments and result."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cann_nb.collect import call_repeats as cr
from cann_nb.collect.call_repeats import fingerprint

from .test_python_tracer import run_traced


def test_equal_values_have_equal_fingerprints_and_different_ones_differ():
    a = np.arange(1000.0)
    assert fingerprint(a) == fingerprint(a.copy())
    b = a.copy()
    b[999] = -1.0   # the last element is in the strided sample
    assert fingerprint(a) != fingerprint(b)
    assert fingerprint(a) != fingerprint(a.astype(np.float32))
    assert fingerprint(("embeddings", 3, 2.5)) == fingerprint(("embeddings", 3, 2.5))
    assert fingerprint([1, "x"]) != fingerprint([1, "y"])
    assert fingerprint(float("nan")) == fingerprint(float("nan"))
    s = pd.Series(["a", "b"] * 50)
    assert fingerprint(s) == fingerprint(s)
    assert fingerprint("x" * 1000) == fingerprint("x" * 1000) != fingerprint("y" * 1000)


def test_objects_are_fingerprinted_by_identity_without_calling_their_methods():
    class Loud:
        def __eq__(self, other):
            raise AssertionError("compared")

        def __hash__(self):
            raise AssertionError("hashed")

    x, y = Loud(), Loud()
    assert fingerprint(x) == fingerprint(x) != fingerprint(y)


def slow_square_sum(n):
    return sum(i * i for i in range(n))


def tiny(n):
    return n + 1


CALLS = [0]


def noisy(n):   # reads state besides its argument: not a pure function of it
    CALLS[0] += 1
    return sum(i * i for i in range(n)) + CALLS[0]


def test_the_tracer_lists_repeated_long_calls_of_a_pure_function_only():
    def work():
        out = 0
        for n in [3000, 4000, 3000, 3000, 4000, 5000]:
            out += slow_square_sum(n) + noisy(n)
            out += tiny(n)   # short: never fingerprinted
        return out

    got = run_traced(work)[0]
    meta = got.meta["call_repeats"]
    assert meta["min_ns"] == cr.MIN_NS and not meta["errors"]
    funcs = {f["name"]: f for f in meta["functions"]}
    f = funcs["slow_square_sum"]
    assert f["pure"] and f["repeats"] == 3 and f["distinct"] == 3 and f["spans"] == 6
    assert funcs.get("tiny", {"repeats": 0})["repeats"] == 0
    assert not any("genexpr" in name for name in funcs)   # a generator's returns are its yields
    ev = got.events
    rows = ev.index[(ev["call_kind"] == "py") & (ev["name"].astype(str).str.endswith("slow_square_sum"))]
    rows = ev.loc[rows].sort_values("start_ns")
    long_calls = rows[rows["dur_ns"] >= cr.MIN_NS]
    # the 3rd, 4th and 5th long calls (n=3000 twice more, 4000 again), found by their ordinals among all spans
    assert [rows.index[k] for k in f["ordinals"]] == list(long_calls.index[[2, 3, 4]])
    assert not funcs["noisy"]["pure"] and funcs["noisy"]["repeats"] == 0


def test_sets_of_other_than_plain_values_and_non_numpy_series_are_fingerprinted_by_identity():
    s = {(1, 2), (3, 4)}   # hashing items other than plain values could run a user's __hash__
    assert fingerprint(s) == ("set", 2, id(s)) and fingerprint({1, 2}) == fingerprint({2, 1})
    cats = pd.Series(["a", "b"] * 50_000, dtype="category")
    assert fingerprint(cats) == ("Series", 100_000, "category", id(cats))


FRAME = pd.DataFrame({"k": np.arange(200_000) % 50, "v": np.ones(200_000)})


def test_a_librarys_own_calls_are_fingerprinted_only_when_expensive():
    # pandas makes thousands of calls over MIN_NS inside one groupby: fingerprinting them all once cost a masked
    # loop over a frame half its profiled time; only the user's calls, and a library's steps of
    # LIBRARY_MIN_NS or more (a factorisation, a conversion), are looked at
    def work():
        out = 0.0
        for _ in range(6):
            out += float(FRAME.groupby("k")["v"].sum().sum())
        return out

    got = run_traced(work)[0]
    meta = got.meta["call_repeats"]
    ev = got.events
    assert meta["looked"] and meta["functions"]
    user_file = __file__.rpartition(".")[0]
    parent_file = np.array([str(x) for x in ev["file_line"].reindex(ev["parent"].to_numpy())])
    dur = ev["dur_ns"].to_numpy()
    libraries = 0
    for f in meta["functions"]:
        calls = (ev["call_kind"] == "py").to_numpy() & (ev["file_line"] == f["file_line"]).to_numpy()
        if not any(p.startswith(user_file) for p in parent_file[calls]):
            libraries += 1
            assert dur[calls].max() >= cr.LIBRARY_MIN_NS, f["name"]
    py = (ev["call_kind"] == "py").to_numpy()
    by_user = np.array([p.startswith(user_file) for p in parent_file])
    eligible = py & ((by_user & (dur >= cr.MIN_NS)) | (dur >= cr.LIBRARY_MIN_NS))
    assert libraries and meta["looked"] <= eligible.sum() < (py & (dur >= cr.MIN_NS)).sum() / 3


def test_the_data_an_argument_carries_is_its_arrays_bytes():
    from scipy import sparse

    m = sparse.random(1000, 1000, density=0.01, format="csr", random_state=0)
    assert cr.data_bytes(np.zeros(1000)) == 8000 and cr.data_bytes(pd.DataFrame({"a": range(10), "b": 0.5})) == 160
    assert cr.data_bytes(m) == m.data.nbytes + m.indices.nbytes + m.indptr.nbytes
    assert cr.data_bytes("float64") == cr.data_bytes(np.dtype("float64")) == cr.data_bytes(None) == 0


def test_an_object_whose_dict_slot_holds_none_is_looked_at_without_raising():
    # an asyncio Task has a dict slot that raises AttributeError when read: the tracer's fingerprints of a
    # long call taking one (a coroutine awaiting a task) once stopped the user's script
    import asyncio

    async def slow(x):
        await asyncio.sleep(0.03)
        return x

    async def wait_for(task):
        return await task

    async def main():
        for i in range(3):
            await wait_for(asyncio.ensure_future(slow(i)))

    got = run_traced(lambda: asyncio.run(main()))[0]   # (raised AttributeError from the hook before)
    assert got.events["name"].astype(str).str.endswith("wait_for").sum() >= 3

    async def probe():
        task = asyncio.ensure_future(slow(0))
        assert cr.data_bytes(task) == 0 and cr.result_fingerprint(task)[0] == "id"
        await task

    asyncio.run(probe())


def test_a_class_or_closure_built_again_from_the_same_arguments_is_the_same_result():
    from collections import namedtuple

    rf = cr.result_fingerprint
    assert rf(namedtuple("Record", ["a", "b"])) == rf(namedtuple("Record", ["a", "b"]))
    assert rf(namedtuple("Record", ["a", "b"])) != rf(namedtuple("Record", ["a", "c"]))

    def scaler(k, offset=0.0):
        return lambda x: k * x + offset

    assert rf(scaler(2.0)) == rf(scaler(2.0)) and rf(scaler(2.0)) != rf(scaler(3.0))
    assert rf(scaler(2.0, 1.0)) != rf(scaler(2.0))
    # the arguments themselves stay by identity: the same class passed again, not an equal one
    assert fingerprint(namedtuple("R", "a")) != fingerprint(namedtuple("R", "a"))
