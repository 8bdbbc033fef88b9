"""analyze/rules/contractions.py and rules/repeats.py on real Python-tracer profiles: a matrix chain or an
einsum evaluated in a costly order, per-element work on a column of repeated values; the same scripts
written well get neither finding."""

from __future__ import annotations

import pytest

from cann_nb.analyze import findings

from .test_python_loops import profile_script


def found(prof, rule):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == rule]


CHAIN = """
    import numpy as np

    rng = np.random.default_rng(0)
    A = rng.normal(size=(700, 700))
    B = rng.normal(size=(700, 700))

    def main():
        s = 0.0
        for i in range(6):
            v = rng.normal(size=700)
            {body}
            s += float(y.sum())
        return s

    result = main()
"""


def test_a_matrix_chain_in_a_costly_order_is_found_and_the_good_order_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, CHAIN.format(body="y = A @ B @ v"), "chain"), "contraction_order")
    assert f.category == "redundant" and f.title.startswith("Line chain.py:12 contracts in a costly order")
    assert "A @ (B @ v)" in f.title
    (line,) = f.evidence["lines"]
    assert line["runs"] == 6 and line["removable_share"] > 0.9   # 2n^3 against 4n^2 (bytes-bound) work
    assert 30 < f.est_gain_pct <= 100
    assert found(profile_script(tmp_path, CHAIN.format(body="y = A @ (B @ v)"), "good"), "contraction_order") == []


EINSUM = """
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 64))
    W = rng.normal(size=(64, 64))
    V = rng.normal(size=(64, 30))

    def main():
        return {call}

    result = main()
"""


def test_an_einsum_on_numpys_default_path_is_found_and_an_optimised_one_is_not(tmp_path):
    chain = EINSUM.format(call="np.einsum('ij,jk,kl->il', X, W, V).sum()")     # 64x the FLOPs of the best path
    (f,) = found(profile_script(tmp_path, chain, "ein"), "contraction_order")
    assert f.category == "redundant" and "default path" in f.title
    assert f.evidence["lines"][0]["removable_share"] > 0.9
    quadratic = EINSUM.format(call="np.einsum('ni,ij,nj->n', X, W, X).sum()")  # 1.5x the FLOPs, outside BLAS
    (f,) = found(profile_script(tmp_path, quadratic, "quad"), "contraction_order")
    assert f.category == "utilization" and "outside BLAS" in f.title
    assert 0.5 < f.evidence["lines"][0]["removable_share"] < 1
    fast = EINSUM.format(call="np.einsum('ij,jk,kl->il', X, W, V, optimize=True).sum()")
    assert found(profile_script(tmp_path, fast, "einopt"), "contraction_order") == []


CITIES = """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    names = np.array([f"  city number {{i}} " for i in range(40)], dtype=object)
    df = pd.DataFrame({{"city": names[rng.integers(0, 40, 150_000)], "n": rng.integers(0, 9, 150_000)}})
    {values}

    def main():
        clean = df["city"].str.strip().str.title()
        return int(clean.str.len().sum())

    result = main()
"""


def test_string_work_on_repeated_values_is_found_and_on_distinct_values_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, CITIES.format(values=""), "cities"), "repeated_values")
    assert f.category == "redundant" and f.title.startswith("Line cities.py:11 runs per-element work")
    assert 'df["city"] (150,000 values, ' in f.title
    assert f.evidence["lines"][0]["removable_share"] > 0.99 and 10 < f.est_gain_pct <= 100
    unique = 'df["city"] = np.array([f"  city number {i} " for i in range(150_000)], dtype=object)'
    assert found(profile_script(tmp_path, CITIES.format(values=unique), "unique"), "repeated_values") == []


def test_a_long_kernel_conv1d_is_found_and_a_short_one_is_not():
    torch = pytest.importorskip("torch")
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.session import CollectionSession

    x = torch.randn(4, 1, 40_000)

    def profile(taps):
        w = torch.randn(1, 1, taps)
        with torch.no_grad():
            torch.nn.functional.conv1d(x, w)   # warm-up
            sess = CollectionSession("conv", ("torch",), CollectOptions())
            sess.start()
            try:
                for _ in range(3):
                    torch.nn.functional.conv1d(x, w)
            finally:
                sess.stop()
        return sess.finish()

    (f,) = found(profile(1501), "long_kernel_conv")
    assert f.category == "hotspot" and f.title.startswith("aten::conv1d with a 1501-tap kernel over 40000 points")
    (conv,) = f.evidence["convolutions"]
    assert conv["calls"] == 3 and conv["weight"][-1] == 1501 and conv["ratio"] > 5
    assert 30 < f.est_gain_pct <= 100
    assert found(profile(9), "long_kernel_conv") == []


CONVOLVE = """
    import numpy as np

    rng = np.random.default_rng(0)
    signal = rng.normal(size=60_000)
    kernel = rng.normal(size={taps})

    def main():
        return float(np.convolve(signal, kernel).sum())

    result = main()
"""


def test_np_convolve_with_a_long_kernel_is_found_and_with_a_short_one_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, CONVOLVE.format(taps=3000), "longconv"), "long_kernel_conv")
    assert f.title.startswith("Line longconv.py:9 convolves long signals directly")
    assert f.evidence["lines"][0]["removable_share"] > 0.9
    assert found(profile_script(tmp_path, CONVOLVE.format(taps=5), "shortconv"), "long_kernel_conv") == []


def _profile_torch(fn):
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.session import CollectionSession

    fn()   # warm-up
    sess = CollectionSession("decode", ("torch",), CollectOptions())
    sess.start()
    try:
        fn()
    finally:
        sess.stop()
    return sess.finish()


def test_a_decode_loop_without_a_cache_is_found_and_with_one_is_not():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    emb, up, down, head = (torch.nn.Embedding(500, 512), torch.nn.Linear(512, 2048), torch.nn.Linear(2048, 512),
                           torch.nn.Linear(512, 500))

    def block(ids):   # a per-token model: with a cache, only the new token needs it
        return down(torch.relu(up(emb(ids))))

    @torch.no_grad()
    def no_cache():
        ids = torch.arange(48).reshape(1, 48)
        for _ in range(24):
            h = block(ids)
            ids = torch.cat([ids, head(h[:, -1]).argmax(-1, keepdim=True)], dim=1)
        return ids

    @torch.no_grad()
    def cached():
        ids = torch.arange(48).reshape(1, 48)
        h = block(ids)
        for _ in range(24):
            nxt = head(h[:, -1]).argmax(-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=1)
            h = block(nxt)
        return ids

    assert torch.equal(no_cache(), cached())
    (f,) = found(_profile_torch(no_cache), "growing_prefix")
    assert f.category == "redundant" and "recompute a growing prefix" in f.title
    run = f.evidence["runs"][0]
    assert run["step"] == 1 and run["first_rows"] == 48 and run["last_rows"] == 71
    assert 30 < f.est_gain_pct <= 100
    assert found(_profile_torch(cached), "growing_prefix") == []


LINALG = """
    import numpy as np

    rng = np.random.default_rng(0)
    M = rng.normal(size=(300, 300))
    S = M + M.T
    b = rng.normal(size=(300, 4))

    def main():
        {body}
        return float(np.abs(w).sum())

    result = main()
"""


def test_a_general_eigensolver_on_a_symmetric_matrix_is_found_and_on_a_general_one_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, LINALG.format(body="w = np.linalg.eigvals(S)"), "eigsym"), "symmetric_eig")
    assert f.category == "hotspot" and "eigvalsh" in f.title
    assert 0.8 < f.evidence["lines"][0]["removable_share"] < 0.9
    assert found(profile_script(tmp_path, LINALG.format(body="w = np.linalg.eigvals(M)"), "eiggen"),
                 "symmetric_eig") == []


def test_an_inverse_multiplied_is_found_and_a_solve_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, LINALG.format(body="w = np.linalg.inv(M) @ b"), "inv"), "inverse_product")
    assert "inv(M) @ b" in f.title and 0.6 < f.evidence["lines"][0]["removable_share"] < 0.7
    assert found(profile_script(tmp_path, LINALG.format(body="w = np.linalg.solve(M, b)"), "solve"),
                 "inverse_product") == []


STEPPING = """
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.linalg import spsolve, splu

    rng = np.random.default_rng(0)
    n = 40
    lap1 = sp.diags([np.ones(n - 1), -2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1])
    A = (sp.identity(n * n) - 0.2 * (sp.kron(sp.identity(n), lap1) + sp.kron(lap1, sp.identity(n)))).tocsc()
    D = rng.normal(size=(300, 300)) + 300 * np.eye(300)

    def main():
        u, v = rng.random(n * n), rng.random(300)
        {setup}
        for k in range(12):
            u = {solve}
            v = {dense}
        return float(u.sum() + v.sum())

    result = main()
"""


def test_a_solve_refactorising_an_unchanged_matrix_is_found_and_factors_reused_are_not(tmp_path):
    slow = STEPPING.format(setup="", solve="spsolve(A, u + 0.01 * k)", dense="np.linalg.solve(D, v + k)")
    (f,) = found(profile_script(tmp_path, slow, "refactor"), "refactorised_matrix")
    assert f.category == "redundant" and "spsolve(A, ...) with the same 1600 x 1600 sparse matrix" in f.title
    lines = {r["line"].rsplit(":", 1)[1]: r for r in f.evidence["lines"]}
    assert set(lines) == {"16", "17"}   # the sparse and the dense solve
    assert 0.8 < lines["17"]["removable_share"] < 0.92   # 11 of 12 factorisations, each ~99 % of a solve
    assert 0 < f.est_gain_pct <= 100
    fixed = STEPPING.format(setup="lu = splu(A); lu_d = __import__('scipy.linalg').linalg.lu_factor(D)",
                            solve="lu.solve(u + 0.01 * k)",
                            dense="__import__('scipy.linalg').linalg.lu_solve(lu_d, v + k)")
    assert found(profile_script(tmp_path, fixed, "factored"), "refactorised_matrix") == []


def test_a_torch_inverse_multiplied_is_found_from_the_trace_and_a_solve_is_not():
    # no Python tracer under torch: the inverse op and the product that takes its result, in the trace
    torch = pytest.importorskip("torch")
    mats = torch.randn(6, 300, 300) + 300 * torch.eye(300)
    rhs = torch.randn(6, 300)

    def inverted():
        return [torch.linalg.pinv(m + 0.5 * torch.eye(300)) @ b for m, b in zip(mats, rhs)] + \
            [torch.linalg.inv(m) @ b for m, b in zip(mats, rhs)]

    def solved():
        return [torch.linalg.solve(m, b) for m, b in zip(mats, rhs)]

    (f,) = found(_profile_torch(inverted), "inverse_product")
    assert f.category == "hotspot" and "inverted to solve with it 12 time(s)" in f.title
    assert "aten::linalg_pinv of a 300 x 300 matrix, then aten::matmul" in f.title
    assert 0 < f.est_gain_pct <= 100
    assert found(_profile_torch(solved), "inverse_product") == []


def test_a_shared_matrix_repeated_for_bmm_is_a_broadcast_copy_and_a_broadcasting_matmul_is_not():
    torch = pytest.importorskip("torch")
    keys, q = torch.randn(512, 64), torch.randn(32, 16, 64)

    def repeated():
        return [torch.bmm(q, keys.unsqueeze(0).repeat(32, 1, 1).transpose(1, 2)) for _ in range(4)]

    def broadcast():
        return [q @ keys.T for _ in range(4)]

    (f,) = found(_profile_torch(repeated), "repeated_rows")
    assert f.category == "memory" and "aten::repeat of [1, 512, 64] by [32, 1, 1], 4.0 MiB" in f.title
    assert f.evidence["copies"] == 4 * 32 and 0 < f.est_gain_pct <= 100
    assert found(_profile_torch(broadcast), "repeated_rows") == []


def test_a_convolution_written_as_unfold_and_matmul_is_found_and_conv2d_is_not():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x, w = torch.randn(4, 8, 64, 64), torch.randn(8, 8, 3, 3)

    def unfolded():
        return [(w.view(8, -1) @ F.unfold(x, kernel_size=3, padding=1)).view(4, 8, 64, 64) for _ in range(4)]

    def direct():
        return [F.conv2d(x, w, padding=1) for _ in range(4)]

    (f,) = found(_profile_torch(unfolded), "unfold_conv")
    assert f.category == "memory" and "aten::im2col of [4, 8, 64, 64] with a 3 x 3 kernel into 72-row" in f.title
    assert f.evidence["unfolds"] == 4 and 0 < f.est_gain_pct <= 100
    assert found(_profile_torch(direct), "unfold_conv") == []


def test_a_loop_invariant_inverse_is_recomputed_work():
    torch = pytest.importorskip("torch")
    a = torch.randn(256, 256) + 256 * torch.eye(256)
    xs = torch.randn(8, 256, 16)
    mats = a + torch.randn(8, 256, 256)

    def loop():
        return [torch.linalg.inv(a) @ x for x in xs]   # the same inverse, once per x

    def new_matrices():
        return [torch.linalg.inv(m) @ x for m, x in zip(mats, xs)]   # a new matrix each time

    prof = _profile_torch(loop)
    (f,) = found(prof, "recomputed_values")   # torch's calls carry value signatures: judged by values
    assert f.category == "redundant" and "aten::linalg_inv recomputed" in f.title and "8 calls where 1" in f.title
    assert 0 < f.est_gain_pct <= 100 and found(prof, "redundant_recompute") == []
    other = _profile_torch(new_matrices)
    assert found(other, "recomputed_values") == [] and found(other, "redundant_recompute") == []


INVERSES = """
    import numpy as np

    rng = np.random.default_rng(0)
    mats = [rng.normal(size=(200, 200)) + 200 * np.eye(200) for _ in range(8)]

    def main():
        s = 0.0
        for m in {which}:
            inv = np.linalg.inv(m)
            s += float(inv[0, 0])
        return s

    result = main()
"""


def test_an_inverse_of_a_new_matrix_each_iteration_is_not_recomputed_work(tmp_path):
    same = found(profile_script(tmp_path, INVERSES.format(which="[mats[0]] * 8"), "same"), "redundant_recompute")
    assert len(same) == 1 and "recomputed 8 times" in same[0].title
    # the line's sampled runs read a different array each time: its inputs change, nothing to hoist
    assert found(profile_script(tmp_path, INVERSES.format(which="mats"), "new"), "redundant_recompute") == []


GUARD = """
    import numpy as np

    rng = np.random.default_rng(0)
    A = rng.random((200, 200)) + 200 * np.eye(200)
    B = rng.random((40, 200))

    def safe_solve(M, b):
        {check}
        return np.linalg.solve(M, b)

    def main():
        return [safe_solve(A + k * np.eye(200), B[k]) for k in range(40)]

    result = main()
"""


def test_an_svd_condition_check_per_solve_is_found_and_a_result_check_is_not(tmp_path):
    svd = GUARD.format(check='if np.linalg.cond(M) > 1e12:\n            raise np.linalg.LinAlgError("singular")')
    (f,) = found(profile_script(tmp_path, svd, "guarded"), "svd_guard")
    assert f.category == "hotspot" and f.evidence["calls"] == 40 and "cond" in f.title
    assert 0 < f.est_gain_pct < 100 and "dgecon" in f.suggestion
    cheap = GUARD.format(check="assert np.isfinite(b).all()")
    assert found(profile_script(tmp_path, cheap, "cheap"), "svd_guard") == []
