"""collect/line_arrays.py on real Python-tracer runs: the arrays a line reads and writes, its temporaries
(tracemalloc on the second run only), repeated rows, and a function's arguments."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd

from cann_nb.collect.line_arrays import describe

from ..analyze.test_python_loops import profile_script

SCRIPT = """
    import numpy as np

    X = np.arange(4000.0 * 16).reshape(4000, 16)
    C = np.ones((30, 16))

    def dists(x, c):
        return ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)

    def main():
        total = 0.0
        for _ in range(4):
            d = dists(X, C)
            total += float(d.min())
        tiled = np.tile(X[0], (20000, 1))
        return total + float(tiled.sum())

    result = main()
"""


def records(prof):
    recs = prof.meta["collectors"]["python"]["line_arrays"]
    return {r["file_line"].rsplit(":", 1)[1] + ("c" if r.get("scope") == "call" else ""): r for r in recs}


def ops(rec):
    return {o["name"]: o for o in rec["operands"]}


def test_a_broadcast_line_shows_its_temporaries_and_operands(tmp_path):
    recs = records(profile_script(tmp_path, SCRIPT, "bcast"))
    line = recs["8"]                      # return ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)
    assert line["runs"] == 2 and line["traced_run"] == 1
    x = ops(line)["x"]
    assert x["shape"] == [4000, 16] and x["dtype"] == "float64" and x["order"] == "C" and x["indexed"] == "columns"
    # one (4000, 30, 16) float64 temporary at least, and the (4000, 30) result kept
    assert line["temporaries_bytes"] >= 4000 * 30 * 16 * 8
    assert line["kept_bytes"] >= 0.99 * 4000 * 30 * 8   # other small objects come and go
    # the caller's line is not measured: its callee's lines are, and tracemalloc over a callee's whole run
    # slowed an allocating line inside it sevenfold
    assert "temporaries_bytes" not in recs["13"] and "traced_run" not in recs["13"] and recs["13"]["runs"] == 2
    # a function's arguments are sampled at its first call (scope "call", keyed by its first line)
    call = recs["7c"]
    assert set(ops(call)) == {"x", "c"} and call["runs"] == 1
    assert tracemalloc.is_tracing() is False   # nothing left on after the run


def test_a_tiled_vector_is_one_row_repeated_but_zeros_are_not(tmp_path):
    recs = records(profile_script(tmp_path, SCRIPT + "    Z = np.zeros((4000, 64))\n", "tile"))
    tiled = ops(recs["15"])["tiled (new)"]
    assert tiled["repeats"] == "rows" and tiled["shape"] == [20000, 16]
    assert "repeats" not in ops(recs["19"])["Z (new)"]


def test_describe_reads_layout_and_object_columns():
    f = np.asfortranarray(np.ones((100, 8), dtype=np.float32))
    assert describe(f)["order"] == "F" and describe(f[:, ::2])["order"] == "strided"
    df = pd.DataFrame({"a": [1.5, 2.5], "b": ["x", "y"], "n": [1, 2]}).astype(object)
    d = describe(df)
    assert d["kind"] == "DataFrame" and d["object_columns"] == 3
    assert d["holds"] == "float x1, int x1, str x1"
    assert describe(pd.Series([1, 2], dtype=object))["holds"] == "int"
    assert describe([1, 2]) is None and describe("text") is None


def test_user_tracemalloc_is_left_alone(tmp_path):
    tracemalloc.start()
    try:
        recs = records(profile_script(tmp_path, SCRIPT, "user_tm"))
        assert "temporaries_bytes" not in recs["8"]
        assert tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()


def test_an_object_that_raises_when_described_is_reported_not_raised(tmp_path):
    src = """
        import numpy as np

        class Odd(np.ndarray):
            @property
            def flags(self):
                raise RuntimeError("no flags here")

        def main():
            a = np.arange(10.0).view(Odd)
            b = np.asarray(a) * 2
            return float(b.sum())

        result = main()
    """
    prof = profile_script(tmp_path, src, "odd")
    errors = [e for r in prof.meta["collectors"]["python"]["line_arrays"] for e in r.get("errors", [])]
    assert any("Odd: RuntimeError: no flags here" in e for e in errors)


def test_source_facts_read_each_line_from_its_own_statement(tmp_path):
    from cann_nb.collect.source_facts import NO_FACTS, SourceFacts

    path = tmp_path / "facts.py"
    path.write_text(
        "import numpy as np\n"                                   # 1
        "for i in range(len(df)):\n"                             # 2: the header only
        "    sub = df[df['k'] == i]; acc += np.exp(sub.v) @ w\n"  # 3: two statements
        "y = (a[:, 0] +\n"                                       # 4: a statement over two lines
        "     b[idx])\n"                                         # 5
    )
    facts = SourceFacts(str(path))
    names, indexed, work, *_ = facts.line(2)
    assert names == {"i": "out", "range": "in", "len": "in", "df": "in"} and work == []
    names, indexed, work, *_ = facts.line(3)
    assert names["acc"] == "inout" and names["sub"] == "inout" and names["w"] == "in"
    assert indexed == {"df": "mask"} and work == ["arithmetic", "matmul", "transcendental"]   # += is arithmetic
    for line in (4, 5):
        names, indexed, *_ = facts.line(line)
        assert indexed == {"a": "columns", "b": "rows"} and names["y"] == "out"
    assert SourceFacts(str(tmp_path / "missing.py")).line(1) == NO_FACTS


def test_source_facts_read_contractions_columns_and_per_element_work(tmp_path):
    from cann_nb.collect.source_facts import SourceFacts

    path = tmp_path / "chains.py"
    path.write_text(
        "y = np.tanh(A @ B.T @ v)\n"                                    # 1: a chain, evaluated left first
        "z = np.dot(P, np.dot(Q, R)) + S @ T\n"                         # 2: a nested dot; a single product
        "e = np.einsum('ij,jk,kl->il', A, B, C)\n"                      # 3: einsum on numpy's default
        "f = np.einsum('ij,jk,kl->il', A, B, C, optimize=True)\n"       # 4: already optimised
        "df['c'] = df['city'].str.lower() + df['zip'].map({1: 2})\n"    # 5: str accessor; a dict lookup
        "g = s.map({1: 2})\n"                                           # 6: a lookup only
    )
    facts = SourceFacts(str(path))
    assert facts.line(1).contractions == [{"kind": "matmul", "tree": [["A", "B.T"], "v"]}]
    assert facts.line(1).work == ["matmul", "transcendental"]
    assert facts.line(2).contractions == [{"kind": "matmul", "tree": ["P", ["Q", "R"]]}]
    assert facts.line(2).work == ["arithmetic", "matmul"]   # the + beside the products
    assert facts.line(3).contractions == [{"kind": "einsum", "subscripts": "ij,jk,kl->il", "operands": ["A", "B", "C"]}]
    assert facts.line(4).contractions == []
    line5 = facts.line(5)
    assert sorted(line5.columns["df"]) == ["city", "zip"] and "per_element" in line5.work
    assert facts.line(6).work == []


def test_describe_reads_a_sparse_matrix_and_facts_name_the_items_assigned(tmp_path):
    sp = __import__("pytest").importorskip("scipy.sparse")
    from cann_nb.collect.source_facts import SourceFacts

    m = sp.random(300, 200, density=0.05, format="csr", random_state=0)
    d = describe(m)
    assert d["kind"] == "sparse" and d["order"] == "csr" and d["shape"] == [300, 200] and d["nnz"] == m.nnz
    assert d["nbytes"] == m.data.nbytes + m.indices.nbytes + m.indptr.nbytes
    assert describe(m.tocsc())["order"] == "csc" and describe(m.tolil())["order"] == "lil"
    path = tmp_path / "stores.py"
    path.write_text("A[i, j] += w\ncol = A[:, j]\ndel d[k]\n")
    facts = SourceFacts(str(path))
    assert facts.line(1).stored == ("A",) and facts.line(2).stored == () and facts.line(3).stored == ("d",)


def test_source_facts_name_what_a_line_selects_from_and_whether_it_returns(tmp_path):
    from cann_nb.collect.source_facts import SourceFacts

    path = tmp_path / "selects.py"
    path.write_text("idx = d.argmin(axis=1)\nj = np.argmax(s)\nreturn df.loc[mask, ['a']]\n"
                    "t = a[a > 0]\ncol = a[:, 0]\nc = df['x']\nm = x.mean()\n")
    facts = SourceFacts(str(path))
    assert [facts.line(k).selected for k in range(1, 8)] == [("d",), ("s",), ("df",), ("a",), (), (), ()]
    assert [facts.line(k).returns for k in (1, 3)] == [False, True]


def test_source_facts_name_what_a_line_compares(tmp_path):
    from cann_nb.collect.source_facts import SourceFacts

    path = tmp_path / "compares.py"
    path.write_text("i = np.where(ids == key)[0]\nok = x == x\nm = (a > 3) & (a <= hi)\ns = a + b\n"
                    "t = a[labels != c]\n")
    facts = SourceFacts(str(path))
    assert [facts.line(k).compared for k in range(1, 6)] == [("ids", "key"), (), ("a", "hi"), (), ("c", "labels")]


def test_a_failure_of_the_sampler_itself_is_reported_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    # a bug in the sampler (here: its source reader raising) must not surface inside the user's code
    import cann_nb.collect.line_arrays as la

    class Broken(la.SourceFacts):
        def line(self, lineno):
            raise KeyError("a bug of the sampler's own")

    monkeypatch.setattr(la, "SourceFacts", Broken)
    src = """
        import numpy as np

        def main():
            a = np.arange(1000.0)
            return float((a * 2).sum())

        result = main()
    """
    prof = profile_script(tmp_path, src, "broken")
    py = prof.meta["collectors"]["python"]
    assert py["status"] == "ok" and prof.meta["status"] == "ok"
    assert "KeyError" in py["line_arrays_error"] and "a bug of the sampler's own" in py["line_arrays_error"]
    assert py["line_arrays"] == []
    assert "the line sampler failed at" in capsys.readouterr().err
