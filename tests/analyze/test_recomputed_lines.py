"""analyze/rules/recomputed_lines.py on real Python-tracer profiles: a KD-tree rebuilt from a static map per
frame and a copy of an unchanged matrix per call are found with a gain; the same code with the work hoisted,
a timing loop over one input, random draws and a line fed the loop's index are not."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

FRAMES = """
    import numpy as np
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(0)
    map_pts = rng.uniform(-50, 50, (40_000, 3))
    frames = [rng.uniform(-50, 50, (500, 3)) for _ in range(12)]

    def residual(scan{param}):
        {build}
        d, _ = tree.query(scan, k=1)
        return float(np.sqrt(np.mean(d ** 2)))

    def main():
        {hoist}
        return [residual(f{arg}) for f in frames]

    result = main()
"""


def frames(tmp_path, hoisted: bool):
    src = FRAMES.format(param=", tree" if hoisted else "", build="pass" if hoisted else "tree = cKDTree(map_pts)",
                        hoist="tree = cKDTree(map_pts)" if hoisted else "pass", arg=", tree" if hoisted else "")
    return profile_script(tmp_path, src, "hoisted" if hoisted else "frames")


def test_an_index_rebuilt_from_the_same_data_per_frame_is_found_and_built_once_is_not(tmp_path):
    (f,) = found(frames(tmp_path, False), "recomputed_lines")
    assert f.category == "redundant" and "frames.py:10" in f.title and "map_pts (40,000x3 float64)" in f.title
    (line,) = f.evidence["lines"]
    assert line["runs"] == 12 and 0.85 < line["removable_share"] < 1.0   # 11 of 12 builds
    assert 0 < f.est_gain_pct < 100
    assert found(frames(tmp_path, True), "recomputed_lines") == []


COPIES = """
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40_000, 16))
    batches = [rng.integers(0, len(X), 256) for _ in range(10)]

    def score(X, rows):
        X = np.array(X, dtype=float)        # validation: a copy of the whole (float64) matrix per call
        return np.tanh(X[rows]).sum()

    def main():
        return [score(X, r) for r in batches]

    result = main()
"""

# every line of the loop repeats: the loop's own repetition (timing one input), not work to hoist
TIMING = """
    import numpy as np

    X = np.random.default_rng(0).normal(size=(40_000, 16))

    def main():
        for _ in range(6):
            y = np.sort(X, axis=0)
        return y

    result = main()
"""

# the same inputs, other results (a random draw), or an input that changes (the loop's index)
VARYING = """
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40_000, 16))

    def main():
        out = []
        for i in range(6):
            noisy = X + rng.normal(size=X.shape)
            shifted = np.roll(X, i, axis=0)
            out.append(float(noisy.sum() + shifted[0, 0]))
        return out

    result = main()
"""


def test_a_copy_of_an_unchanged_matrix_per_call_is_found(tmp_path):
    (f,) = found(profile_script(tmp_path, COPIES, "copies"), "recomputed_lines")
    assert "copies.py:9" in f.title and f.evidence["lines"][0]["runs"] == 10


def test_a_timing_loop_random_draws_and_a_changing_index_are_not_recomputation(tmp_path):
    assert found(profile_script(tmp_path, TIMING, "timing"), "recomputed_lines") == []
    prof = profile_script(tmp_path, VARYING, "varying")
    assert found(prof, "recomputed_lines") == []
    recs = {r["file_line"].rsplit(":", 1)[1]: r for r in prof.meta["collectors"]["python"]["line_arrays"]}
    assert recs["10"]["same_work"] is False and recs["11"]["same_work"] is False
