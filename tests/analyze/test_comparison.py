"""cann_nb.compare: alignment, direction, buckets, the significance test, findings and the track record.

Synthetic profiles with seeded noise (tests/synth_steps.py), so every number here is deterministic."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import cann_nb
from cann_nb.analyze import significance as sig
from cann_nb.analyze import calibration as track_record
from cann_nb.analyze.finding import Finding
from cann_nb.analyze.comparison import CompareInputError, compare, same_finding
from cann_nb.errors import NotOneProfile, ProfileNotFound
from cann_nb.store import Session

from tests.synth_steps import empty, stepped, with_cold_first_step

OPS = {"aten::mm": 1_000_000, "aten::add": 200_000, "aten::relu": 100_000}


# -- the tests themselves ------------------------------------------------------------------------------
@pytest.mark.parametrize("t, df, p", [
    (2.0, 10, 0.07339), (2.228, 10, 0.0500), (2.571, 5, 0.0500), (12.706, 1, 0.0500), (2.042, 30, 0.0500),
    (0.0, 5, 1.0), (1.96, 1e6, 0.0500), (3.0, 4, 0.0400)])
def test_student_t_two_sided_p_matches_tables(t, df, p):
    assert sig.t_two_sided_p(t, df) == pytest.approx(p, abs=2e-4)


def test_welch_matches_the_textbook_example():
    # Wikipedia "Welch's t-test", example 1: t = 2.46, df = 25.0, p = 0.021
    a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    r = sig.welch(np.array(a), np.array(b))
    assert r["t"] == pytest.approx(2.4554, abs=1e-3)
    assert r["df"] == pytest.approx(24.99, abs=0.02)
    assert r["p"] == pytest.approx(0.0214, abs=5e-4)
    # rows at once, and the edge cases
    rows = sig.welch(np.array([a, a]), np.array([b, a]))
    assert rows["p"][0] == pytest.approx(r["p"]) and rows["p"][1] == pytest.approx(1.0)
    assert sig.welch(np.array([1.0, 1.0]), np.array([2.0, 2.0]))["p"] == 0.0      # no noise, a real change
    assert sig.welch(np.array([1.0, 1.0]), np.array([1.0, 1.0]))["p"] == 1.0
    assert math.isnan(sig.welch(np.array([1.0]), np.array([2.0, 3.0]))["p"])       # one sample: unknown


def test_mann_whitney_exact_and_normal():
    assert sig.mann_whitney([1, 2, 3], [4, 5, 6])["p"] == pytest.approx(0.1)        # 2 / C(6, 3)
    assert sig.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])["p"] == pytest.approx(2 / 252)
    r = sig.mann_whitney([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    assert r["method"] == "normal" and r["p"] == pytest.approx(1.0)               # ties: normal approximation
    assert sig.mann_whitney([3, 1, 2], [6, 5, 4])["u"] == 9.0                     # new > base in all 9 pairs


def test_planted_slowdown_is_slower_with_the_right_magnitude():
    base = stepped(OPS, name="before")
    new = stepped({**OPS, "aten::mm": 2_000_000}, seed=1, name="after")
    c = compare(base, new, with_findings=False)
    ops = c.ops.set_index("name")
    mm = ops.loc["aten::mm"]
    assert mm["bucket"] == "slower" and bool(mm["significant"]) is True
    assert mm["p_value"] < 1e-4
    assert mm["delta_pct"] == pytest.approx(100.0, abs=5.0)                       # +100 %, new - base
    assert mm["ratio"] == pytest.approx(2.0, abs=0.05)
    assert mm["delta_ns"] == pytest.approx(mm["new_total_ns"] - mm["base_total_ns"])
    assert mm["delta_ms"] == pytest.approx(mm["delta_ns"] / 1e6)
    assert mm["base_count"] == 5 and mm["new_count"] == 5
    assert mm["base_mean_ns"] == pytest.approx(1e6, rel=0.02)
    assert set(ops.loc[["aten::add", "aten::relu"], "bucket"]) == {"unchanged"}
    assert c.e2e["verdict"] == "slower" and c.e2e["significant"] is True
    assert c.e2e["delta_ns"] == pytest.approx(new.wall_ns - base.wall_ns)
    assert c.ops["delta_ns"].abs().is_monotonic_decreasing                       # largest change first
    assert "delta = new - base" in c.summary_text()


def test_noise_only_differences_are_not_reported():
    # 3 % per-sample noise, different seeds: nothing may come out slower or faster
    for seed in range(6):
        c = compare(stepped(OPS, seed=100 + seed, noise=0.03), stepped(OPS, seed=200 + seed, noise=0.03),
                    with_findings=False)
        assert set(c.ops["bucket"]) == {"unchanged"}, (seed, c.ops)
        assert c.e2e["verdict"] == "unchanged"


def test_a_large_change_within_huge_noise_is_not_significant():
    base = stepped(OPS, seed=1, noise=0.6, steps=4)
    new = stepped({**OPS, "aten::relu": 130_000}, seed=2, noise=0.6, steps=4)
    c = compare(base, new, with_findings=False)
    relu = c.ops.set_index("name").loc["aten::relu"]
    assert relu["p_value"] > 0.05 and relu["bucket"] == "unchanged"


def test_without_steps_significance_is_unknown_and_says_so():
    base = stepped(OPS, step_events=False, steps=1)
    new = stepped({**OPS, "aten::mm": 3_000_000}, step_events=False, steps=1, seed=3)
    c = compare(base, new, with_findings=False)
    assert c.ops["p_value"].isna().all() and c.ops["significant"].isna().all()
    assert c.ops.set_index("name").loc["aten::mm", "bucket"] == "slower"   # the effect decides
    assert c.settings["available"] is False and "--repeat" in c.settings["unknown_reason"]
    assert "significance unknown" in c.summary_text()
    assert c.e2e["p_value"] is None or math.isnan(c.e2e["p_value"])


def test_added_removed_and_nothing_in_common():
    base = stepped({"a": 100_000, "b": 100_000})
    new = stepped({"a": 100_000, "c": 100_000}, seed=1)
    c = compare(base, new, with_findings=False)
    assert c.buckets() == {"slower": 0, "faster": 0, "added": 1, "removed": 1, "unchanged": 1}
    other = compare(base, stepped({"x": 1, "y": 2}, seed=4), with_findings=False)
    assert set(other.ops["bucket"]) == {"added", "removed"}
    assert any("no op in common" in n for n in other.notes)


def test_empty_profiles_compare_without_error():
    c = compare(empty("e1"), stepped(OPS), with_findings=False)
    assert c.buckets()["added"] == 3 and any("no events" in n for n in c.notes)
    c2 = compare(empty("e1"), empty("e2"))
    assert len(c2.ops) == 0 and math.isnan(c2.e2e["delta_pct"])
    json.dumps(c2.to_dict(), allow_nan=False)


def test_different_step_counts_compare_per_step():
    base = stepped(OPS, steps=3)
    new = stepped(OPS, steps=6, seed=9)
    c = compare(base, new, with_findings=False)
    assert c.settings["normalised"] and any("per step" in n for n in c.notes)
    assert c.e2e["delta_pct"] == pytest.approx(0.0, abs=3.0)
    mm = c.ops.set_index("name").loc["aten::mm"]
    assert mm["base_count"] == 1 and mm["new_count"] == 1 and mm["bucket"] == "unchanged"


def test_views_by_shapes_and_by_module():
    base = stepped(OPS, shapes={"aten::mm": "[[8, 8]]"}, modules={"aten::mm": "net.fc", "aten::add": "net.fc"})
    new = stepped(OPS, seed=2, shapes={"aten::mm": "[[16, 16]]"}, modules={"aten::mm": "net.fc2",
                                                                               "aten::add": "net.fc"})
    c = compare(base, new, with_findings=False)
    assert c.ops.set_index("name").loc["aten::mm", "bucket"] == "unchanged"          # by name: the same op
    shp = c.table("name+shapes")
    mm = shp[shp["name"] == "aten::mm"].set_index("shapes")["bucket"].to_dict()
    assert mm == {"[[16, 16]]": "added", "[[8, 8]]": "removed"}
    mod = c.table("module").set_index("module")["bucket"].to_dict()
    assert mod["net.fc2"] == "added" and mod["net.fc"] in ("faster", "unchanged")


def test_an_op_mostly_outside_the_steps_is_not_judged_by_them():
    base = stepped(OPS, setup_ns=50_000_000)
    new = stepped(OPS, setup_ns=150_000_000, seed=5)
    c = compare(base, new, with_findings=False)
    setup = c.ops.set_index("name").loc["setup"]
    assert math.isnan(setup["p_value"]) and setup["bucket"] == "slower"
    assert math.isnan(c.e2e["p_value"]) and c.e2e["verdict"] == "slower"         # setup changed e2e
    assert any("cover" in n for n in c.notes)


def test_mann_whitney_option():
    base = stepped(OPS, steps=6)
    new = stepped({**OPS, "aten::mm": 2_000_000}, steps=6, seed=1)
    c = compare(base, new, test="mannwhitney", with_findings=False)
    mm = c.ops.set_index("name").loc["aten::mm"]
    assert mm["bucket"] == "slower" and mm["p_value"] == pytest.approx(2 / 924)    # exact, 6 vs 6
    assert "Mann-Whitney" in c.settings["description"]


def test_memory_and_device_deltas():
    base = stepped(OPS, memory_peak=100e6)
    new = stepped(OPS, memory_peak=150e6, seed=1)
    c = compare(base, new, with_findings=False)
    mem = c.memory.set_index("device").loc["cpu"]
    assert mem["delta_bytes"] == 50e6 and mem["delta_pct"] == pytest.approx(50.0)
    busy = c.devices[(c.devices["device"] == "cpu") & (c.devices["metric"] == "busy_ns")].iloc[0]
    assert busy["delta_ns"] == pytest.approx(busy["new_ns"] - busy["base_ns"])


def test_json_is_strict_and_complete():
    c = compare(stepped(OPS), stepped({**OPS, "x": 5}, seed=1))
    d = json.loads(json.dumps(c.to_dict(), allow_nan=False))
    for key in ("base", "new", "direction", "significance", "e2e", "steps", "buckets", "ops", "ops_by_shapes",
                "ops_by_module", "memory", "devices", "findings", "notes"):
        assert key in d
    assert d["ops"][0].keys() >= {"name", "base_count", "new_count", "base_total_ns", "new_total_ns", "delta_ns",
                                  "delta_pct", "ratio", "p_value", "significant", "bucket"}
    assert set(d["findings"]) == {"appeared", "resolved", "persisted"}


def test_names_and_paths_are_resolved_by_the_front_end_compare(tmp_path):
    store = Session(tmp_path / "s")
    store.add(stepped(OPS, name="v1"))
    store.add(stepped(OPS, name="v1", seed=3))           # v1@1 and v1
    store.add_group("g", {0: stepped(OPS, name="r0"), 1: stepped(OPS, name="r1", seed=1)})
    c = cann_nb.compare("v1@1", str(tmp_path / "s" / "v1"), store=tmp_path / "s", with_findings=False)
    assert c.base.meta["version"] == 1 and c.new.meta["version"] == 2
    c = cann_nb.compare("g/rank=0", "g/rank=1", store=tmp_path / "s", with_findings=False)
    assert (c.base.meta["rank"], c.new.meta["rank"]) == (0, 1)
    with pytest.raises(ProfileNotFound, match=r"no profile 'nope'.*not a name in the store .*\(stored: v1, g\)"):
        cann_nb.compare("nope", "v1", store=tmp_path / "s")
    with pytest.raises(NotOneProfile, match="give one rank, e.g. g/rank=0"):
        cann_nb.compare("g", "v1", store=tmp_path / "s")
    with pytest.raises(CompareInputError, match="unknown test"):
        cann_nb.compare("v1", "v1", store=tmp_path / "s", test="ttest")
    # the analysis itself is pure: Profiles only
    with pytest.raises(TypeError, match="takes two Profiles; the base is a str"):
        compare("v1", stepped(OPS))


def test_finding_matching_rules():
    f = lambda rule, ops=(), dev=None: {"rule": rule, "ops": list(ops), "evidence": {"device": dev} if dev else {}}
    assert same_finding(f("hotspot", ["a"]), f("hotspot", ["a", "b"]))
    assert not same_finding(f("hotspot", ["a"]), f("hotspot", ["b"]))
    assert same_finding(f("device_idle", ["x"], "npu:0"), f("device_idle", ["y"], "npu:1"))   # rank's device
    assert not same_finding(f("device_idle", [], "npu:0"), f("device_idle", [], "cuda:0"))
    assert not same_finding(f("syncs"), f("hotspot"))


def _fake_advisor(monkeypatch, by_name):
    def advisor(profile, **kw):
        return [Finding(rule=r, category="hotspot", severity="high", title=f"{r} on {ops}", ops=tuple(ops),
                        est_gain_ns=g, est_gain_pct=100.0 * g / profile.wall_ns, evidence={"wall_ns": profile.wall_ns})
                for r, ops, g in by_name.get(profile.name, [])]

    import cann_nb.analyze.api as api
    monkeypatch.setattr(api, "findings", advisor)


def test_findings_resolved_appeared_and_the_track_record(tmp_path, monkeypatch):
    store = Session(tmp_path / "s")
    base = stepped(OPS, name="before")
    new = stepped({**OPS, "aten::mm": 500_000}, seed=1, name="after")       # saves 0.5 ms per step
    store.add(base), store.add(new)
    predicted = 5 * 1_000_000.0                                              # the advisor said 5 ms
    _fake_advisor(monkeypatch, {"before": [("slow_mm", ["aten::mm"], predicted), ("syncs", ["aten::add"], 1e5)],
                                "after": [("syncs", ["aten::add"], 1e5), ("small_ops", ["aten::relu"], 1e4)]})
    c = cann_nb.compare("before", "after", store=tmp_path / "s")
    assert [f["rule"] for f in c.findings["resolved"]] == ["slow_mm"]
    assert [f["rule"] for f in c.findings["appeared"]] == ["small_ops"]
    assert [f["rule"] for f in c.findings["persisted"]] == ["syncs"]
    assert len(c.recorded) == 1
    rec = c.recorded[0]
    realised = base.wall_ns - new.wall_ns
    assert rec["predicted_gain_ns"] == predicted and rec["realised_ns"] == pytest.approx(realised)
    assert rec["realised_ops_ns"] == pytest.approx(c.ops.set_index("name").loc["aten::mm", "base_total_ns"]
                                                   - c.ops.set_index("name").loc["aten::mm", "new_total_ns"])
    # the same comparison again adds nothing; the file is one JSON object per line
    again = cann_nb.compare("before", "after", store=tmp_path / "s")
    assert again.recorded == []
    lines = (tmp_path / "s" / ".track_record.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["rule"] == "slow_mm"
    assert "before" in Session(tmp_path / "s").names() and ".track_record.jsonl" not in Session(tmp_path / "s").names()
    # accuracy and calibration: ratio r = realised / predicted; overall factor exp(log r / (1 + 2)),
    # the rule's exp((log r + 2 log g) / (1 + 2))
    r = realised / predicted
    acc = track_record.accuracy(tmp_path / "s")
    assert acc["records"] == 1 and acc["median_ratio"] == pytest.approx(r)
    g = math.exp(math.log(r) / 3)
    f_rule = math.exp((math.log(r) + 2 * math.log(g)) / 3)
    assert acc["factor"] == pytest.approx(g)
    later = [Finding(rule="slow_mm", category="hotspot", severity="high", title="t", est_gain_ns=1e6,
                     est_gain_pct=10.0, evidence={"wall_ns": 10_000_000}),
             Finding(rule="other", category="hotspot", severity="low", title="u", est_gain_ns=1e6, est_gain_pct=10.0)]
    cal = track_record.calibrate(later, tmp_path / "s")
    assert cal[0].est_gain_ns == pytest.approx(1e6 * f_rule) and cal[0].est_gain_pct == pytest.approx(10 * f_rule)
    assert cal[0].evidence["calibration"]["uncalibrated_gain_ns"] == 1e6
    assert cal[1].est_gain_ns == pytest.approx(1e6 * g)                     # unseen rule: the overall factor
    assert "advisor track record" in track_record.summary_text(tmp_path / "s")


def test_a_change_that_makes_the_run_slower_is_no_fix(tmp_path, monkeypatch):
    store = Session(tmp_path / "s")
    store.add(stepped(OPS, name="before")), store.add(stepped({**OPS, "aten::mm": 5_000_000}, name="after", seed=1))
    _fake_advisor(monkeypatch, {"before": [("slow_mm", ["aten::mm"], 1e6)]})
    c = cann_nb.compare("before", "after", store=tmp_path / "s")
    assert c.findings["resolved"] and c.recorded == [] and any("no fix" in n or "not a fix" in n for n in c.notes)


def test_no_record_without_a_store_or_when_disabled(tmp_path, monkeypatch):
    _fake_advisor(monkeypatch, {"before": [("slow_mm", ["aten::mm"], 1e6)]})
    c = cann_nb.compare(stepped(OPS, name="before"), stepped(OPS, name="after", seed=1))
    assert c.findings["resolved"] and c.recorded == []
    store = Session(tmp_path / "s")
    store.add(stepped(OPS, name="before")), store.add(stepped(OPS, name="after", seed=1))
    assert compare(store["before"], store["after"]).recorded == []           # the analysis never records
    c = cann_nb.compare("before", "after", store=tmp_path / "s", record=False)
    assert c.recorded == [] and not (tmp_path / "s" / ".track_record.jsonl").exists()


def test_cross_source_cpu_collected_vs_ascend_imported(real_data):
    """Ops align by name across sources: a CPU profile with the Ascend profile's host op names."""
    from cann_nb.ingest.ascend import read_ascend

    npu = read_ascend(real_data / "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt")
    host = npu.events[npu.events["cat"] == "op"]
    top = host.groupby("name", observed=True)["dur_ns"].sum().nlargest(3)
    cpu = stepped({str(n): max(int(d), 1000) for n, d in top.items()}, steps=1, step_events=False, name="cpu")
    c = compare(cpu, npu, with_findings=False)
    ops = c.ops.set_index("name")
    for n in top.index.astype(str):
        row = ops.loc[n]
        assert row["base_count"] == 1 and row["new_count"] > 0 and row["bucket"] != "added", n
    assert (ops["bucket"] == "added").sum() > 0                                 # kernels only on the NPU
    assert set(c.memory["device"]) >= {"npu:0"} and "npu:0" in set(c.devices["device"])


def test_rank_devices_are_aligned(real_data):
    from cann_nb.ingest.ascend import read_ascend

    root = real_data / "msinsight/test/data/pytorch/text/level1"
    c = compare(read_ascend(root / "rank0_ascend_pt"), read_ascend(root / "rank1_ascend_pt"), with_findings=False)
    assert set(c.memory["device"]) == {"npu:0"} and c.memory["new_peak_bytes"].notna().all()
    assert any("npu:1" in n for n in c.notes)


def test_display_bundle_has_text_and_html():
    c = compare(stepped(OPS), stepped(OPS, seed=1), with_findings=False)
    b = c._repr_mimebundle_()
    assert b["text/plain"].startswith("cann_nb compare") and "<pre" in b["text/html"]
    assert "&lt;" in compare(stepped({"<b>x</b>": 5}), stepped({"<b>x</b>": 9}))._repr_mimebundle_()["text/html"]
    assert "<b>x</b>" not in compare(stepped({"<b>x</b>": 5}), stepped({"<b>x</b>": 9}))._repr_mimebundle_()["text/html"]


def test_a_cold_first_step_is_left_out_of_the_test():
    base = with_cold_first_step(stepped(OPS, steps=6), 20_000_000)
    new = with_cold_first_step(stepped({**OPS, "aten::mm": 1_300_000}, steps=6, seed=1), 20_500_000)
    c = compare(base, new, with_findings=False)
    # with the 20 ms first steps in the samples the +0.3 ms per step would drown; without them it is clear
    assert any("cold start" in n for n in c.notes)
    mm = c.ops.set_index("name").loc["aten::mm"]
    assert mm["p_value"] < 1e-3 and mm["bucket"] == "slower"
    assert c.e2e["p_value"] < 1e-3
    # first steps that differ a lot: one sample per side, significance unknown, the values decide
    new2 = with_cold_first_step(stepped(OPS, steps=6, seed=2), 60_000_000)
    c2 = compare(base, new2, with_findings=False)
    assert math.isnan(c2.e2e["p_value"]) and c2.e2e["verdict"] == "slower"
    assert any("first (cold) steps differ" in n for n in c2.notes)


def test_two_versions_of_one_name_keep_their_versions_in_every_view(tmp_path, capsys):
    """'nightly' -> 'nightly (v2)' read as if only one side had a version; the report said
    'nightly vs nightly' and labelled both timelines 'nightly'."""
    from cann_nb.frontends import cli
    from cann_nb.report import report_html
    from cann_nb.widgets._tables import diff_payload

    store = Session(tmp_path / "s")
    store.add(stepped({"aten::mm": 1_000_000}, name="nightly", steps=4))
    store.add(stepped({"aten::mm": 1_300_000}, name="nightly", steps=4, seed=1))
    assert cli.main(["compare", "nightly@1", "nightly", "--store", str(store.root), "--no-findings",
                     "--no-record"]) == 0
    assert "cann_nb compare 'nightly (v1)' -> 'nightly (v2)'" in capsys.readouterr().out
    cmp = compare(store["nightly@1"], store["nightly"], with_findings=False)
    assert cmp.labels == ("nightly (v1)", "nightly (v2)")
    assert diff_payload(cmp)["names"] == ["nightly (v1)", "nightly (v2)"]       # the diff view's timelines
    html = report_html(cmp)
    assert "<title>nightly (v2) vs nightly (v1) · cann_nb report</title>" in html
    assert "nightly vs nightly" not in html
    # two unstored profiles of one name still say which is which
    a, b = stepped({"x": 1}, name="run"), stepped({"x": 2}, name="run")
    assert compare(a, b, with_findings=False).labels == ("run (base)", "run (new)")


def test_a_change_within_the_noise_is_said_to_be_so_with_its_band():
    """On a busy machine a 5-step profile can read -39 % for a change that is noise: the comparison
    gives the noise band of the step change and the text says it is no measured change."""
    from cann_nb.analyze import significance as sig

    assert sig.noise_band([0, 1, 2, 3, 4], [0, 1, 2, 3, 4]) == pytest.approx(2.306 * np.sqrt(2.5 * 0.4), rel=1e-3)
    noisy = compare(stepped({"mm": 10_000_000}, steps=5, noise=0.5, seed=1, name="a"),
                    stepped({"mm": 9_000_000}, steps=5, noise=0.5, seed=2, name="b"), with_findings=False)
    assert noisy.e2e["significant"] is False and noisy.steps["noise_pct"] > abs(noisy.steps["delta_pct"])
    assert "within the run-to-run noise of ±" in noisy.summary_text() and "not a measured change" in noisy.summary_text()
    clear = compare(stepped({"mm": 10_000_000}, steps=5, noise=0.01, name="a"),
                    stepped({"mm": 5_000_000}, steps=5, noise=0.01, seed=3, name="b"), with_findings=False)
    assert clear.e2e["significant"] and 0 < clear.steps["noise_pct"] < 5
    assert "noise ±" in clear.summary_text() and "not a measured change" not in clear.summary_text()
    assert json.loads(json.dumps(clear.to_dict(), allow_nan=False))["steps"]["noise_pct"] > 0
    one_step = compare(stepped({"mm": 1_000}, steps=1, name="a"), stepped({"mm": 2_000}, steps=1, name="b"),
                       with_findings=False)
    assert one_step.steps.get("noise_pct") is None
