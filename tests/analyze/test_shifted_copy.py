"""analyze/rules/buffers.shifted_copy on real Python-tracer profiles: a sliding window kept by np.roll of the
whole buffer per sample is found with a gain; the ring buffer (a head index) is not, nor is a whole-array
update followed by a write into part of it (decay, then a bump: every element changes)."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import numpy as np

    rng = np.random.default_rng(0)
    stream = rng.random((32, 3000))

    def run():
        buf = np.zeros((32, 1024))
        head, out = 0, []
        for i in range(stream.shape[1]):
            {body}
            if i % 500 == 0:
                out.append(float(buf.sum()))
        return out

    result = run()
"""
ROLL = """buf = np.roll(buf, -1, axis=1)
            buf[:, -1] = stream[:, i]"""
RING = """buf[:, head] = stream[:, i]
            head = (head + 1) % buf.shape[1]"""
DECAY = """buf = buf * 0.99
            buf[:, i % 1024] += stream[:, i]"""


def test_a_buffer_rolled_per_sample_is_found_and_a_ring_buffer_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, SRC.format(body=ROLL), "slow"), "shifted_copy")
    assert f.category == "memory"
    assert f.title.startswith("Line slow.py:11 copies buf (32, 1024) (256.0 KiB) whole on each of its 3,000 runs; "
                              "line slow.py:12 writes a part of it")
    assert 10 < f.est_gain_pct <= 100
    assert found(profile_script(tmp_path, SRC.format(body=RING), "ring"), "shifted_copy") == []
    assert found(profile_script(tmp_path, SRC.format(body=DECAY), "decay"), "shifted_copy") == []
