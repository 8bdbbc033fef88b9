"""Every findings list says which rules could not run for lack of data, and which flag enables them."""

import json
import subprocess
import sys

import pytest

from cann_nb.analyze.api import analyze
from cann_nb.analyze.rules.coverage import available, skipped_note, skipped_rules

from .synth import Trace

torch = pytest.importorskip("torch")


def _torch_profile(shapes: bool, memory: bool = True):
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.session import CollectionSession

    x = torch.randn(64, 64, dtype=torch.float64)
    sess = CollectionSession("t", ("torch",), CollectOptions(shapes=shapes, memory=memory))
    sess.start()
    for _ in range(5):
        x = torch.tanh(x @ x)
    sess.stop()
    return sess.finish()


def test_without_shapes_the_shape_rules_are_named_with_their_flag():
    prof = _torch_profile(shapes=False)
    assert not available(prof)["shapes"]
    skipped = {s["rule"]: s for s in skipped_rules(prof)}
    assert "float64" in skipped and skipped["float64"]["missing"] == ["shapes"]
    assert "--shapes" in skipped["float64"]["enable"]
    # rules that need a device cannot be enabled by a flag on a CPU run: said, without a flag
    assert skipped["syncs"]["enable"] is None and "device" in skipped["syncs"]["reason"]
    note = skipped_note(list(skipped.values()))
    assert "float64" in note and "--shapes" in note
    out = analyze(prof)
    assert {s["rule"] for s in out["profile"]["analysis_skipped"]} == set(skipped)
    json.dumps(out["profile"]["analysis_skipped"])


def test_with_the_default_flags_the_shape_rules_run():
    prof = _torch_profile(shapes=True)
    assert available(prof)["shapes"]
    assert "float64" not in {s["rule"] for s in skipped_rules(prof)}
    assert any(f["rule"] == "float64" for f in analyze(prof)["findings"])


def test_imported_trace_without_shapes_names_no_flag():
    tr = Trace()
    for i in range(50):
        tr.op("aten::mm", i * 10_000, 9_000)
    skipped = {s["rule"]: s for s in skipped_rules(tr.profile())}
    assert skipped["float64"]["enable"] is None     # no collector of ours ran: no flag to suggest
    assert skipped["recomputed_values"]["missing"] == ["values"] and skipped["recomputed_values"]["enable"] is None


def test_value_signatures_need_allocations_and_say_so():
    assert available(_torch_profile(shapes=True))["values"]
    skipped = {s["rule"]: s for s in skipped_rules(_torch_profile(shapes=True, memory=False))}
    assert skipped["recomputed_values"]["missing"] == ["values"] and "--memory" in skipped["recomputed_values"]["enable"]


def test_text_outputs_carry_the_note(tmp_path):
    from cann_nb.frontends.api import Findings
    from cann_nb.store import Session

    prof = _torch_profile(shapes=False)
    found = Findings([])
    found.skipped_note = skipped_note(skipped_rules(prof))
    assert "--shapes" in repr(found)
    Session(tmp_path).add(prof)
    r = subprocess.run([sys.executable, "-m", "cann_nb", "analyze", "t", "--store", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "could not run" in r.stdout and "--shapes" in r.stdout


def test_suggestion_panel_note():
    from cann_nb.widgets.views import default_findings

    _, note = default_findings(_torch_profile(shapes=False))
    assert "float64" in note and "--shapes" in note
