"""analyze/rules/selection.sliced_result on real Python-tracer profiles: one row of a correlation matrix, and
half of a complex FFT of real input, kept as views of the whole result, are found with a gain; their
well-written twins are not, nor is a column view of an array the line only reads."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import numpy as np

    rng = np.random.default_rng(0)
    X, y = rng.random((1500, 900)), rng.random(1500)
    frames = rng.random((400, 4096))

    def target_corr(X, y):
        {corr}

    def power(frames):
        {power}

    def main():
        out = []
        for _ in range(3):
            out.append(target_corr(X, y).sum() + power(frames).sum() + X[:, 0].sum())
        return out

    result = main()
"""
SLOW = dict(corr="return np.corrcoef(np.column_stack([y, X]), rowvar=False)[0, 1:]",
            power="spec = np.fft.fft(frames)[:, :2049]\n        return np.abs(spec) ** 2")
FIXED = dict(corr="Xc, yc = X - X.mean(0), y - y.mean()\n"
                  "        return Xc.T @ yc / (np.sqrt((Xc * Xc).sum(0)) * np.sqrt(yc @ yc))",
             power="spec = np.fft.rfft(frames)\n        return np.abs(spec) ** 2")


def test_a_row_of_a_correlation_matrix_and_half_an_fft_are_found_and_their_twins_are_not(tmp_path):
    (f,) = found(profile_script(tmp_path, SRC.format(**SLOW), "slow"), "sliced_result")
    assert f.category == "redundant"
    lines = {line["line"].rsplit(":", 1)[1]: line for line in f.evidence["lines"]}
    assert set(lines) == {"9", "12"}   # the callers' lines (their result is the same slice) are not counted
    assert "(901, 901) array" in lines["9"]["what"] and lines["9"]["removable_share"] > 0.99
    assert "(400, 4096) array" in lines["12"]["what"] and 0.45 < lines["12"]["removable_share"] < 0.55
    assert 5 < f.est_gain_pct <= 100
    assert found(profile_script(tmp_path, SRC.format(**FIXED), "fixed"), "sliced_result") == []
