"""analyze/rules/library_loops.py on real Python-tracer profiles: a library call that parses a file field by
field in interpreted Python (np.genfromtxt) is a per-element loop with an estimate; the same file read by a
compiled parser (np.loadtxt's C reader), and a line that only imports, are not."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import io
    import numpy as np

    rng = np.random.default_rng(0)
    text = "\\n".join(",".join(f"{v:.4f}" for v in row) for row in rng.random((6_000, 6)))

    def load(buffer):
        return np.{reader}(buffer, delimiter=",")

    def main():
        data = load(io.StringIO(text))
        return float(np.abs(np.fft.rfft(data, axis=0)).sum())

    result = main()
"""


def test_a_parser_converting_every_field_in_python_is_a_library_loop(tmp_path):
    prof = profile_script(tmp_path, SRC.replace("{reader}", "genfromtxt"), "gen")
    (f,) = found(prof, "library_loop")
    assert f.category == "host_bound" and f.title.startswith("numpy.lib._npyio_impl.genfromtxt (called at gen.py:9)")
    per_element = f.evidence["per_element_functions"]
    assert per_element and per_element[0]["per_call"] >= 6_000          # once per row at least
    # the gain is most of the call's time: the interpreted frames and short calls go, little native work stays
    assert 0 < f.evidence["kept_ns"] < 0.2 * f.evidence["time_ns"]
    assert 0 < f.est_gain_ns < f.evidence["time_ns"]


def test_a_compiled_parser_and_an_import_are_not_library_loops(tmp_path):
    # np.loadtxt parses in C (numpy >= 1.23): the same file, no per-element Python
    assert found(profile_script(tmp_path, SRC.replace("{reader}", "loadtxt"), "load"), "library_loop") == []
    src = """
        import importlib, sys
        for name in [m for m in sys.modules if m.startswith("email")]:
            del sys.modules[name]
        import email.mime.multipart, email.mime.text, email.parser   # module bodies run call by call
        result = 1.0
    """
    assert found(profile_script(tmp_path, src, "imports"), "library_loop") == []


def test_compiling_a_regex_once_is_not_a_library_loop(tmp_path):
    # re.compile tokenises a long pattern call by call, once: re caches it, no data is looped over
    src = """
        import re

        words = [f"w{i:05d}x" for i in range(3_000)]

        def main():
            pattern = re.compile("|".join(words))
            return len(pattern.findall(" ".join(words[::7])))

        result = main()
    """
    prof = profile_script(tmp_path, src, "once")
    tokens = prof.events["name"].astype(str).str.startswith("re._parser.Tokenizer").sum()
    assert tokens >= 3_000          # the compiler's per-token calls are there
    assert found(prof, "library_loop") == []
