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
