"""Ascend importer against the real samples (docs/formats.md §9) and corrupted copies of them.

Totals are checked against independent computations on the raw files: Python's csv module + Decimal
(never pandas or float), so a unit or rounding slip in the importer cannot cancel out.
"""

from __future__ import annotations

import csv
import shutil
import sqlite3
from collections import Counter, defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cann_nb.errors import TraceFormatError
from cann_nb.ingest.ascend import find_ranks, is_ascend, read_ascend
from cann_nb.ingest.ascend.units import us_to_ns

PT = "msinsight/test/data/pytorch"
ST = "msinsight/test/st/level2"
SRV = "msinsight/server/src/test/test_data"
MSA = "msprof_analyze/test/ut/advisor"

TEXT_RUNS = [f"{PT}/text/level{lv}/rank{r}_ascend_pt" for lv in (0, 1, 2) for r in (0, 1)] + [
    f"{ST}/rank_0_ascend_pt", f"{ST}/rank_2_ascend_pt", f"{SRV}/test_rank_0", f"{SRV}/test_rank_1"]
DB_RUNS = [f"{PT}/db/level{lv}/rank{r}_ascend_pt" for lv in (0, 1, 2) for r in (0, 1)]
SINGLE_FILES = [f"{SRV}/test_kernel_parse/op_summary_1.csv", f"{MSA}/advisor_backend/compute_advice/kernel_details.csv",
                f"{MSA}/compute_advice/data/kernel_details.csv", f"{MSA}/timeline_advice/trace_view.json",
                f"{SRV}/full_db/msprof_0.db",
                f"{PT}/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
                f"{PT}/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"]
SPARSE_RUNS = [f"{ST}/rank_1_ascend_pt", f"{ST}/rank_3_ascend_pt",  # only step_trace + communication summaries
               "mindspore_legacy/tests/ut/data/profiler_data/profiler"]
ALL = TEXT_RUNS + DB_RUNS + SINGLE_FILES + SPARSE_RUNS
DEVICE_CATS = ("kernel", "comm", "memcpy")


# ---------------------------------------------------------------------------------------------
# independent helpers (csv + Decimal)

def dec_ns(cell: str) -> int:
    """Epoch/duration µs text -> ns with Decimal, the reference conversion."""
    return int((Decimal(cell.strip().strip('"').strip()) * 1000).to_integral_value(ROUND_HALF_UP))


def rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return list(csv.DictReader(fh))


def kernel_csv(run: Path) -> Path | None:
    for p in ([run] if run.is_file() else [run / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"]):
        if p.suffix == ".csv" and p.is_file():
            return p
    return None


def pick(row: dict, *names):
    for n in names:
        if n in row:
            return row[n]
    raise KeyError(names)


_cache: dict = {}


def load(real_data: Path, rel: str, **kw):
    key = (rel, tuple(sorted(kw.items())))
    if key not in _cache:
        _cache[key] = read_ascend(real_data / rel, **kw)
    return _cache[key]


# ---------------------------------------------------------------------------------------------
# every sample imports and validates


@pytest.mark.parametrize("rel", ALL)
def test_sample_imports_and_validates(real_data, rel):
    prof = load(real_data, rel)
    prof.validate()
    assert is_ascend(real_data / rel)
    meta = prof.meta
    assert isinstance(meta["t0_ns"], int)
    assert meta["source"]["format"] in ("torch_npu-text", "torch_npu-db", "msprof-text", "msprof-db",
                                        "mindspore-legacy")
    ev = prof.events
    if len(ev):
        # default t0 = the earliest event (Python frames left out on import included: they bound the run)
        assert ev["start_ns"].min() == 0 if "python_function" not in meta["skipped"] else ev["start_ns"].min() >= 0
        dev = ev[ev["cat"].isin(DEVICE_CATS)]
        assert dev["device"].astype(str).str.fullmatch(r"npu:\d+").all()
        assert dev["track"].astype(str).str.match(r"npu:\d+/(stream \d+|COMMUNICATION|.+)$").all()
        host = ev[ev["device"] == "cpu"]
        assert host["track"].astype(str).str.fullmatch(r"host/thread \d+(/python)?").all()
        assert (host.loc[host["cat"] == "python", "track"].astype(str).str.endswith("/python")).all()
        assert (dev["parent"] == -1).all() and (dev["depth"] == 0).all()


def test_sparse_runs_keep_summaries(real_data):
    prof = load(real_data, f"{ST}/rank_1_ascend_pt")
    assert len(prof.events) == 0  # this sample ships no per-task file (SOURCES.md: >4 MiB files left out)
    assert prof.meta["ascend"]["step_trace"][0]["step"] == 13
    assert prof.meta["ascend"]["communication"]["ops"]
    legacy = load(real_data, "mindspore_legacy/tests/ut/data/profiler_data/profiler")
    assert legacy.meta["ascend"]["legacy"]["aicore_op_time_ms"]


# ---------------------------------------------------------------------------------------------
# totals against the raw files


KERNEL_SOURCES = [r for r in TEXT_RUNS] + SINGLE_FILES[:3]


@pytest.mark.parametrize("rel", KERNEL_SOURCES)
def test_kernel_details_totals_exact(real_data, rel):
    """Per device: row count, sum of Duration(us) and every start time, exact to the ns."""
    run = real_data / rel
    prof = load(real_data, rel)
    raw = rows(kernel_csv(run))
    dev_default = prof.meta["devices"][0]["device"]
    want_sum, want_n, want_starts = defaultdict(int), Counter(), defaultdict(Counter)
    for r in raw:
        dev = f"npu:{int(r['Device_id'])}" if r.get("Device_id", "").strip() else dev_default
        want_n[dev] += 1
        want_sum[dev] += dec_ns(pick(r, "Duration(us)", "Task Duration(us)"))
        want_starts[dev][(pick(r, "Name", "Op Name"), dec_ns(pick(r, "Start Time(us)", "Task Start Time(us)")))] += 1
    ev = prof.events
    t0 = prof.meta["t0_ns"]
    from_kd = ev[ev["cat"].isin(("kernel", "comm"))]
    for dev in want_n:
        mine = from_kd[from_kd["device"] == dev]
        assert len(mine) == want_n[dev]
        assert abs(int(mine["dur_ns"].sum()) - want_sum[dev]) <= len(mine)  # 1 ns per row at most
        assert int(mine["dur_ns"].sum()) == want_sum[dev]  # in fact exact
        got = Counter(zip(mine["name"].astype(str), (mine["start_ns"] + t0).astype("int64")))
        assert got == want_starts[dev]


@pytest.mark.parametrize("rel", [r for r in TEXT_RUNS])
def test_extra_columns_from_kernel_details(real_data, rel):
    prof = load(real_data, rel)
    raw = rows(kernel_csv(real_data / rel))
    k = prof.events[prof.events["cat"].isin(("kernel", "comm"))]
    assert k["block_dim"].notna().sum() == sum(1 for r in raw if r.get("Block Dim", "N/A") not in ("", "N/A"))
    if "Step Id" in raw[0]:
        assert sorted(k["step"].dropna().astype(int)) == sorted(int(r["Step Id"]) for r in raw if r["Step Id"])
    if "aic_mac_ratio" in raw[0]:
        want = sum(float(r["aic_mac_ratio"]) for r in raw if r["aic_mac_ratio"] not in ("", "N/A"))
        assert k["pmu_aic_mac_ratio"].sum() == pytest.approx(want)
    if "Input Shapes" in raw[0]:
        r0 = next(r for r in raw if r["Input Shapes"] not in ("N/A", ""))
        assert '"' in r0["Input Shapes"]  # tripled quotes in the file ...
        row = k[(k["name"] == r0["Name"]) & (k["start_ns"] + prof.meta["t0_ns"] == dec_ns(r0["Start Time(us)"]))]
        assert row["shapes"].iloc[0] == r0["Input Shapes"].replace('"', "")  # ... none in the column
        assert row["dtypes"].iloc[0] == r0["Input Data Types"]
    comm = k[k["cat"] == "comm"]
    assert len(comm) == sum(1 for r in raw if r["Accelerator Core"] in ("HCCL", "COMMUNICATION"))
    assert (comm["track"].astype(str).str.endswith("/COMMUNICATION")).all()
    assert set(k["core_type"].dropna().astype(str)) <= {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU",
                                                         "DSA_SQE", "HCCL", "COMMUNICATION"}


def test_level0_core_type_comes_from_trace_view(real_data):
    """Level0 kernel_details says N/A for core type and has no stream: trace_view fills both in."""
    raw = rows(kernel_csv(real_data / TEXT_RUNS[0]))
    assert {r["Accelerator Core"] for r in raw} >= {"N/A"}
    k = load(real_data, TEXT_RUNS[0]).events
    k = k[k["cat"] == "kernel"]
    assert k["core_type"].notna().all() and k["stream_id"].notna().all()
    assert k["track"].astype(str).str.startswith("npu:0/stream ").all()


def test_op_statistic_cross_check(real_data):
    for rel in TEXT_RUNS[2:6]:
        cc = load(real_data, rel).meta["ascend"]["cross_checks"]["op_statistic"]
        assert cc["checked"] and cc["mismatches"] == []


@pytest.mark.parametrize("rel", TEXT_RUNS)
def test_step_trace(real_data, rel):
    prof = load(real_data, rel)
    path = real_data / rel / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv"
    raw = rows(path)
    recs = prof.meta["ascend"]["step_trace"]
    assert len(recs) == len(raw)
    for r, rec in zip(raw, recs):
        assert rec["computing_ns"] == dec_ns(r["Computing"])
        assert rec["free_ns"] == dec_ns(r["Free"])
        assert rec["step"] == int(r["Step"])
    steps = prof.events[prof.events["cat"] == "step"]
    assert sorted(steps["step"].astype(int)) == sorted(int(r["Step"]) for r in raw)
    assert (steps["dur_ns"] > 0).all()


@pytest.mark.parametrize("rel", TEXT_RUNS)
def test_memory_record_peak_and_operator_memory(real_data, rel):
    prof = load(real_data, rel)
    out = real_data / rel / "ASCEND_PROFILER_OUTPUT"
    raw = rows(out / "memory_record.csv")
    peak = defaultdict(int)
    for r in raw:
        if r["Total Allocated(MB)"].strip():
            dev = r["Device Type"].lower()
            b = Decimal(r["Total Allocated(MB)"]) * 2 ** 20
            peak[dev] = max(peak[dev], b)
    mem = prof.memory
    samples = mem[mem["kind"] == "sample"]
    assert len(samples) == len(raw)
    for dev, want in peak.items():
        assert samples.loc[samples["device"] == dev, "allocated_bytes"].max() == pytest.approx(float(want), abs=1)
    op_rows = rows(out / "operator_memory.csv")
    alloc, free = mem[mem["kind"] == "alloc"], mem[mem["kind"] == "free"]
    assert len(alloc) == len(op_rows)
    assert len(free) == sum(1 for r in op_rows if r["Release Time(us)"].strip())
    assert alloc["delta_bytes"].sum() == pytest.approx(sum(float(r["Size(KB)"]) * 1024 for r in op_rows))
    t0 = prof.meta["t0_ns"]
    assert sorted(alloc["ts_ns"] + t0) == sorted(dec_ns(r["Allocation Time(us)"]) for r in op_rows)


@pytest.mark.parametrize("rel", TEXT_RUNS[:6] + TEXT_RUNS[6:8])
def test_npu_module_mem_counters(real_data, rel):
    prof = load(real_data, rel)
    raw = rows(real_data / rel / "ASCEND_PROFILER_OUTPUT" / "npu_module_mem.csv")
    c = prof.counters[prof.counters["metric"].astype(str).str.startswith("module_mem:")]
    valid = [r for r in raw if float(r["Total Reserved(MB)"]) != -1]
    assert len(c) == len(valid)
    assert c["value"].sum() == pytest.approx(sum(float(r["Total Reserved(MB)"]) * 2 ** 20 for r in valid))
    assert set(c["source"].astype(str)) == {r["Device"].lower() for r in raw}


def test_rank_and_device_are_distinct(real_data):
    """torch_npu 2.7.1 writes rank_id as the string "2"; rank 2 ran on NPU:4."""
    prof = load(real_data, f"{ST}/rank_2_ascend_pt")
    assert prof.meta["rank"] == 2 and prof.meta["world_size"] == 4
    assert [d["device"] for d in prof.meta["devices"]] == ["npu:4"]
    assert prof.meta["distributed"] == {"rank": 2, "world_size": 4, "backend": "hccl"}
    assert prof.meta["environment"]["torch_npu_version"] == "2.7.1"
    assert prof.meta["options"]["profiler_level"] == "Level2"
    assert prof.meta["ascend"]["profiler_metadata"]["parallel_group_info"]["group_name_3"]["group_name"] == "dp"


def test_communication_summary(real_data):
    prof = load(real_data, TEXT_RUNS[2])
    comm = prof.meta["ascend"]["communication"]
    assert comm["totals"]["count"] == 4
    op = comm["ops"][0]
    assert op["op"].startswith("hcom_allReduce") and op["group"]
    assert op["elapse_time_ms"] > 0 and "HCCS" in op["bandwidth"]
    assert comm["matrix"] and {"src_rank", "dst_rank", "bandwidth_gbps"} <= set(comm["matrix"][0])


# ---------------------------------------------------------------------------------------------
# links


@pytest.mark.parametrize("rel", [TEXT_RUNS[2], TEXT_RUNS[4], DB_RUNS[2], DB_RUNS[4]])
def test_every_kernel_links_to_its_launch(real_data, rel):
    ev = load(real_data, rel).events
    k = ev[ev["cat"].isin(("kernel", "comm"))]
    runtime = ev[(ev["cat"] == "runtime") & (ev["corr"] >= 0)]
    assert k["corr"].isin(runtime["corr"]).all()  # CANN connection id shared with the launch API
    assert (k["host_op_id"] >= 0).all()
    ops = ev.set_index("id").loc[k["host_op_id"]]
    assert (ops["cat"] == "op").all() and (ops["device"] == "cpu").all()
    # the launching op starts before its task
    assert (ops["start_ns"].to_numpy() <= k["start_ns"].to_numpy()).all()


@pytest.mark.parametrize("rel", [TEXT_RUNS[2], DB_RUNS[4], SINGLE_FILES[3]])
def test_host_nesting_is_containment(real_data, rel):
    """Every child lies inside its parent (python frames have their own lane, see assemble.py)."""
    prof = load(real_data, rel, python_functions=True)
    ev = prof.events.set_index("id", drop=False)
    if rel != SINGLE_FILES[3]:
        assert (ev["cat"] == "python").sum() == 1282
        assert (ev.loc[ev["cat"] == "python", "track"].astype(str).str.endswith("/python")).all()
    child = ev[ev["parent"] >= 0]
    par = ev.loc[child["parent"]]
    assert (child["start_ns"].to_numpy() >= par["start_ns"].to_numpy()).all()
    assert ((child["start_ns"] + child["dur_ns"]).to_numpy() <= (par["start_ns"] + par["dur_ns"]).to_numpy()).all()
    assert (child["track"].to_numpy() == par["track"].to_numpy()).all()
    assert (child["depth"].to_numpy() == par["depth"].to_numpy() + 1).all()


def test_python_frames_dropped_by_default(real_data):
    """Like the Kineto importer: with_stack frames are counted, not imported, unless asked for."""
    prof = load(real_data, TEXT_RUNS[2])
    assert (prof.events["cat"] == "python").sum() == 0
    assert prof.meta["skipped"]["python_function"] == 1282 and not prof.meta["dropped"]   # on purpose, not lost
    assert "buffer full" not in prof.summary_text() and "hccl_plane_tasks 296" in prof.summary_text()
    with_py = load(real_data, TEXT_RUNS[2], python_functions=True)
    assert len(with_py.events) == len(prof.events) + 1282
    assert prof.wall_ns == with_py.wall_ns                 # the frames left out still bound the run
    k, kp = (p.events[p.events["cat"] == "kernel"] for p in (prof, with_py))
    names = lambda p, ids: p.events.set_index("id").loc[ids, "name"].tolist()  # noqa: E731
    assert names(prof, k["host_op_id"]) == names(with_py, kp["host_op_id"])


def test_host_nesting(real_data):
    ev = load(real_data, TEXT_RUNS[2]).events
    step = ev[(ev["cat"] == "op") & (ev["name"] == "ProfilerStep#50")].iloc[0]
    inside = ev[(ev["track"] == step["track"]) & (ev["start_ns"] > step["start_ns"]) &
                (ev["start_ns"] + ev["dur_ns"] < step["start_ns"] + step["dur_ns"])]
    assert (inside["depth"] > step["depth"]).all()
    assert ev.loc[ev["parent"] >= 0, "parent"].isin(ev["id"]).all()


# ---------------------------------------------------------------------------------------------
# text vs SQLite exports of the same workload


@pytest.mark.parametrize("level", [0, 1, 2])
@pytest.mark.parametrize("rank", [0, 1])
def test_text_and_db_agree(real_data, level, rank):
    """Same script, two profiling runs (one per export type; their timestamps differ by minutes).

    Counts and kernel names must agree exactly. Total kernel time cannot be identical across two
    executions; it agrees within 1 % (measured 0.19-0.42 %): compute kernels are deterministic, only
    run-to-run jitter differs. Communication time is not compared: it includes waiting for other ranks.
    """
    t = load(real_data, f"{PT}/text/level{level}/rank{rank}_ascend_pt").events
    d = load(real_data, f"{PT}/db/level{level}/rank{rank}_ascend_pt").events
    for cat in DEVICE_CATS:
        assert (t["cat"] == cat).sum() == (d["cat"] == cat).sum(), cat
    tk, dk = t[t["cat"] == "kernel"], d[d["cat"] == "kernel"]
    assert Counter(tk["name"].astype(str)) == Counter(dk["name"].astype(str))
    assert Counter(tk["op_type"].astype(str)) == Counter(dk["op_type"].astype(str))
    assert dk["dur_ns"].sum() == pytest.approx(tk["dur_ns"].sum(), rel=0.01)
    assert (t["cat"] == "op").sum() == (d["cat"] == "op").sum()
    if level > 0:  # Level0's trace_view has no CANN process; the db keeps CANN_API anyway
        assert abs(int((t["cat"] == "runtime").sum()) - int((d["cat"] == "runtime").sum())) <= 100
    tp = tk.filter(like="pmu_").columns
    dp = dk.filter(like="pmu_").columns
    if level > 0:
        assert {"pmu_aic_mac_ratio", "pmu_aiv_vec_time_us", "pmu_aic_time_us"} <= set(tp) & set(dp)
        # PMU times: µs in the CSV, ns in TASK_PMU_INFO -> both µs here, same magnitude
        assert dk["pmu_aiv_time_us"].sum() == pytest.approx(tk["pmu_aiv_time_us"].sum(), rel=0.05)


def test_db_totals_against_sqlite(real_data):
    """SQLite import vs a direct SQL computation on the same file."""
    rel = DB_RUNS[2]
    prof = load(real_data, rel)
    db = real_data / rel / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        n, tot = con.execute("SELECT count(*), sum(t.endNs - t.startNs) FROM TASK t JOIN COMPUTE_TASK_INFO c "
                             "ON c.globalTaskId = t.globalTaskId").fetchone()
        steps = con.execute("SELECT id, startNs, endNs FROM STEP_TIME").fetchall()
        peak = con.execute("SELECT max(totalAllocated) FROM MEMORY_RECORD").fetchone()[0]
    finally:
        con.close()
    k = prof.events[prof.events["cat"] == "kernel"]
    assert len(k) == n and int(k["dur_ns"].sum()) == tot
    s = prof.events[prof.events["cat"] == "step"]
    t0 = prof.meta["t0_ns"]
    assert [(int(a), int(b) + t0, int(b + c) + t0) for a, b, c in zip(s["step"], s["start_ns"], s["dur_ns"])] == steps
    assert prof.memory["allocated_bytes"].max() == peak
    assert prof.meta["device"] == "Ascend910B"


def test_msprof_db(real_data):
    prof = load(real_data, f"{SRV}/full_db/msprof_0.db")
    assert prof.meta["source"]["format"] == "msprof-db"
    assert (prof.events["cat"] == "kernel").sum() == 11
    assert (prof.memory["kind"].isin(["alloc", "free"])).all()


def test_op_summary_header_variant(real_data):
    """msinsight's op_summary_1.csv mixes op_summary names (Op Name, Task Duration(us)) with others."""
    prof = load(real_data, SINGLE_FILES[0])
    raw = rows(real_data / SINGLE_FILES[0])
    k = prof.events[prof.events["cat"].isin(("kernel", "comm"))]
    assert len(k) == len(raw)
    assert int(k["dur_ns"].sum()) == sum(dec_ns(r["Task Duration(us)"]) for r in raw)
    assert k["wait_ns"].sum() == sum(dec_ns(r["Task Wait Time(us)"]) for r in raw)


# ---------------------------------------------------------------------------------------------
# options, ranks, exactness


def test_t0_name_rank_overrides(real_data):
    base = load(real_data, TEXT_RUNS[2])
    t0 = base.meta["t0_ns"] - 1_000_000
    p = read_ascend(real_data / TEXT_RUNS[2], t0_ns=t0, name="mine", rank=7)
    assert p.meta["t0_ns"] == t0 and p.name == "mine" and p.meta["rank"] == 7
    assert (p.events["start_ns"].to_numpy() == base.events["start_ns"].to_numpy() + 1_000_000).all()


def test_prefer_text_or_db(real_data, tmp_path):
    run = tmp_path / "both_ascend_pt"
    shutil.copytree(real_data / TEXT_RUNS[2], run)
    shutil.copy(real_data / DB_RUNS[2] / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db",
                run / "ASCEND_PROFILER_OUTPUT")
    assert read_ascend(run).meta["source"]["format"] == "torch_npu-db"
    assert read_ascend(run, prefer="text").meta["source"]["format"] == "torch_npu-text"


def test_cluster_folder_error_points_to_find_ranks(real_data):
    e = _raises_naming(real_data / ST, "level2")
    assert "4 runs" in e.detail and "find_ranks" in e.detail


def test_find_ranks(real_data):
    got = find_ranks(real_data / ST)
    assert [r for r, _ in got] == [0, 1, 2, 3]
    assert [p.name for _, p in got] == [f"rank_{i}_ascend_pt" for i in range(4)]
    got = find_ranks(real_data / f"{PT}/db/level1")
    assert [r for r, _ in got] == [0, 1]
    assert find_ranks(real_data / TEXT_RUNS[0]) == [(0, real_data / TEXT_RUNS[0])]


def test_exact_ns_conversion():
    cells = pd.Series(["1736408883704643.212\t", '"1736413971558972.912\t"', "1699529622790614.8",
                       "1695115378713661", "1.69512E+15", "N/A", "", "53.7410625", "-2.5"])
    v, miss = us_to_ns(cells)
    assert v[:5].tolist() == [1736408883704643212, 1736413971558972912, 1699529622790614800, 1695115378713661000,
                              1695120000000000000]
    assert miss.tolist() == [False] * 5 + [True, True, False, False]
    assert v[7] == 53741 and v[8] == -2500
    # float64 could not have done it: the nearest double is 32 ns away
    assert int(float("1736408883704643.212") * 1000) != 1736408883704643212


def test_exact_ns_through_import(real_data):
    prof = load(real_data, TEXT_RUNS[2])
    raw = rows(kernel_csv(real_data / TEXT_RUNS[2]))
    first = min(raw, key=lambda r: dec_ns(r["Start Time(us)"]))
    assert first["Start Time(us)"].endswith("\t")
    k = prof.events[prof.events["name"] == first["Name"]]
    assert dec_ns(first["Start Time(us)"]) in set((k["start_ns"] + prof.meta["t0_ns"]).tolist())


# ---------------------------------------------------------------------------------------------
# header sniffing and renamed headers


def test_renamed_file_is_sniffed(real_data, tmp_path):
    out = tmp_path / "export"
    out.mkdir()
    shutil.copy(kernel_csv(real_data / TEXT_RUNS[2]), out / "my_kernels_export.csv")
    prof = read_ascend(out)
    assert (prof.events["cat"].isin(("kernel", "comm"))).sum() == 191


def test_block_num_header(real_data, tmp_path):
    src = kernel_csv(real_data / TEXT_RUNS[2]).read_bytes()
    f = tmp_path / "kernel_details.csv"
    f.write_bytes(src.replace(b"Block Dim,Mix Block Dim", b"Block Num,Mix Block Num", 1))
    a = read_ascend(f).events
    b = load(real_data, TEXT_RUNS[2]).events
    assert a["block_dim"].sum() == b.loc[b["cat"].isin(("kernel", "comm")), "block_dim"].sum()
    assert a["mix_block_dim"].notna().any()


def test_device_id_column_and_level0_columns(real_data):
    k = load(real_data, f"{ST}/rank_2_ascend_pt").events
    assert set(k.loc[k["cat"] == "kernel", "device"].astype(str)) == {"npu:4"}
    lv0 = rows(kernel_csv(real_data / TEXT_RUNS[0]))
    assert len(lv0[0]) == 8  # Level0: few columns


# ---------------------------------------------------------------------------------------------
# corrupt copies


def _copy_run(real_data, tmp_path, rel=TEXT_RUNS[2]) -> Path:
    dst = tmp_path / Path(rel).name
    shutil.copytree(real_data / rel, dst)
    return dst


def _raises_naming(path, fragment: str, **kw):
    with pytest.raises(TraceFormatError) as err:
        read_ascend(path, **kw)
    assert fragment in str(err.value), str(err.value)
    return err.value


def test_truncated_csv(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    f = run / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    data = f.read_bytes()
    f.write_bytes(data[: len(data) // 2])
    e = _raises_naming(run, "kernel_details.csv")
    assert "line" in e.where


def test_garbage_bytes_in_a_timestamp(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    f = run / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    lines = f.read_bytes().split(b"\n")
    lines[5] = lines[5].replace(b"1736408883", b"17x#@88883", 1)
    f.write_bytes(b"\n".join(lines))
    e = _raises_naming(run, "kernel_details.csv")
    assert e.where.startswith("line 6") and "Start Time(us)" in e.where


def test_non_utf8(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    f = run / "ASCEND_PROFILER_OUTPUT" / "operator_memory.csv"
    f.write_bytes(f.read_bytes().replace(b"aten::empty_strided", b"aten::\xff\xfe\xfd", 3))
    _raises_naming(run, "operator_memory.csv")


def test_missing_required_column(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    f = run / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    f.write_bytes(f.read_bytes().replace(b"Duration(us)", b"Dur", 1))
    e = _raises_naming(run, "kernel_details.csv")
    assert "Duration" in e.expected


def test_missing_memory_column(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    f = run / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv"
    f.write_bytes(f.read_bytes().replace(b"Timestamp(us)", b"When", 1))
    _raises_naming(run, "memory_record.csv")


def test_truncated_trace_view(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    f = run / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    data = f.read_bytes()
    f.write_bytes(data[: len(data) // 3])
    e = _raises_naming(run, "trace_view.json")
    assert e.where.startswith("char")


def test_trace_view_wrong_shape(tmp_path):
    f = tmp_path / "trace_view.json"
    f.write_text('[{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "12.5", "dur": 1}, 3]')
    _raises_naming(f, "event 1")
    f.write_text('[{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "1x2", "dur": 1}]')
    _raises_naming(f, "trace_view.json")


def test_truncated_sqlite(real_data, tmp_path):
    src = real_data / DB_RUNS[2] / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    f = tmp_path / "ascend_pytorch_profiler_0.db"
    data = src.read_bytes()
    f.write_bytes(data[: len(data) // 3])
    e = _raises_naming(f, "ascend_pytorch_profiler_0.db")
    assert "table" in e.where or "sqlite_master" in e.where


def test_sqlite_missing_tables_and_not_sqlite(tmp_path):
    f = tmp_path / "msprof_1.db"
    con = sqlite3.connect(f)
    con.execute("CREATE TABLE unrelated (a INTEGER)")
    con.commit()
    con.close()
    _raises_naming(f, "msprof_1.db")
    g = tmp_path / "ascend_pytorch_profiler_0.db"
    g.write_bytes(b"this is not a database at all" * 10)
    _raises_naming(g, "ascend_pytorch_profiler_0.db")


def test_sqlite_missing_required_column(real_data, tmp_path):
    src = real_data / DB_RUNS[2] / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    f = tmp_path / "ascend_pytorch_profiler_0.db"
    shutil.copy(src, f)
    con = sqlite3.connect(f)
    con.execute("ALTER TABLE TASK RENAME COLUMN startNs TO beginning")
    con.commit()
    con.close()
    e = _raises_naming(f, "ascend_pytorch_profiler_0.db")
    assert "TASK" in e.where


def test_broken_profiler_info(real_data, tmp_path):
    run = _copy_run(real_data, tmp_path)
    (run / "profiler_info_0.json").write_text('{"config": ')
    _raises_naming(run, "profiler_info_0.json")


def test_empty_and_unrelated_folders(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    _raises_naming(empty, "empty")
    assert not is_ascend(empty)
    other = tmp_path / "holiday_photos"
    other.mkdir()
    (other / "notes.txt").write_text("hello")
    (other / "prices.csv").write_text("item,price\napple,1\n")
    _raises_naming(other, "holiday_photos")
    assert not is_ascend(other)
    _raises_naming(tmp_path / "does_not_exist", "does_not_exist")
    assert find_ranks(other) == []


def test_empty_output_folder(tmp_path):
    run = tmp_path / "x_ascend_pt"
    (run / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (run / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").write_bytes(b"")
    _raises_naming(run, "ASCEND_PROFILER_OUTPUT")


def test_negative_or_missing_duration(real_data, tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Name,Start Time(us),Duration(us)\nk1,1736408883704643.212\t,1.5\nk2,1736408883704645.0,\n")
    e = _raises_naming(f, "kernel_details.csv")
    assert e.where.startswith("line 3")
    f.write_text("Name,Start Time(us),Duration(us)\nk1,1736408883704643.212\t,-1.5\n")
    _raises_naming(f, "kernel_details.csv")


def test_unknown_extra_columns_are_ignored(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim,Shiny New\n"
                 "3,k1,Add,AI_VECTOR_CORE,1736408883704643.212\t,1.5,0,8,whatever\n")
    prof = read_ascend(f)
    assert "Shiny New" not in prof.events.columns and "shiny_new" not in prof.events.columns
    k = prof.events[prof.events["cat"] == "kernel"].iloc[0]
    assert k["dur_ns"] == 1500 and k["block_dim"] == 8 and k["op_type"] == "Add"
    assert prof.meta["t0_ns"] == 1736408883704643212


def test_sentinels_become_missing(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Model ID,Task ID,Stream ID,Name,Accelerator Core,Start Time(us),Duration(us)\n"
                 "4294967295,12,2,k1,AI_CORE,100.5,1\n4294967295,N/A,N/A,hcom_x,HCCL,101,2\n")
    ev = read_ascend(f).events
    k = ev[ev["name"] == "k1"].iloc[0]
    h = ev[ev["name"] == "hcom_x"].iloc[0]
    assert np.isnan(k["model_id"]) and k["stream_id"] == 2 and k["track"] == "npu:0/stream 2"
    assert h["cat"] == "comm" and h["track"] == "npu:0/COMMUNICATION" and np.isnan(h["stream_id"])


def test_short_row_in_a_real_sample_is_kept_and_reported(real_data):
    """msinsight's hand-edited GPT-3 kernel_details.csv has one row with 31 of 32 fields (line 17)."""
    prof = load(real_data, f"{SRV}/test_rank_0")
    bad = prof.meta["ascend"]["malformed_rows"]["kernel_details.csv"]
    assert bad["short_rows"] == 1 and bad["lines"] == [17]
    assert (prof.events["name"] == "FlashAttentionScore").any()


def test_truncated_inside_a_quoted_cell(real_data, tmp_path):
    f = tmp_path / "kernel_details.csv"
    src = kernel_csv(real_data / TEXT_RUNS[2]).read_bytes()
    cut = src.index(b'"""', len(src) // 2) + 5  # stop inside a tripled-quote shapes cell
    f.write_bytes(src[:cut])
    e = _raises_naming(f, "kernel_details.csv")
    assert e.where.startswith("line") and ("truncated" in e.detail or "EOF inside string" in e.detail)


def test_quoted_newlines_and_quotes_in_names(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text('Name,Start Time(us),Duration(us)\n"a\nb",1.5,2\n"""q""",3,1\n', encoding="utf-8")
    ev = read_ascend(f).events
    assert sorted(ev.loc[ev["cat"] == "kernel", "name"].astype(str)) == ['"q"', "a\nb"]


# ---------------------------------------------------------------------------------------------
# native msprof layout (no licensed real sample exists, formats.md §10): built from a real run by
# applying the documented renames (§3.1) and units (§3.6: KB), sliced like big msprof outputs


_OP_SUMMARY_NAMES = {"Name": "Op Name", "Type": "OP Type", "Accelerator Core": "Task Type",
                     "Start Time(us)": "Task Start Time(us)", "Duration(us)": "Task Duration(us)",
                     "Wait Time(us)": "Task Wait Time(us)"}


def _write_rows(path: Path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\r\n")
        w.writerow(header)
        w.writerows(rows)


def _msprof_from(run: Path, dst: Path) -> Path:
    out = dst / "PROF_000001_20250109012806123_ABCDEFGH" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    src = run / "ASCEND_PROFILER_OUTPUT"
    kd = rows(src / "kernel_details.csv")
    header = ["Device_id"] + [_OP_SUMMARY_NAMES.get(h, h) for h in kd[0] if h != "Step Id"]
    body = [["0"] + [v for h, v in r.items() if h != "Step Id"] for r in kd]
    half = len(body) // 2
    _write_rows(out / "op_summary_slice_0_20250109012900.csv", header, body[:half])
    _write_rows(out / "op_summary_slice_1_20250109012900.csv", header, body[half:])
    mr = rows(src / "memory_record.csv")
    kb = lambda v: str(Decimal(v) * 1024) if v.strip() else ""  # noqa: E731
    _write_rows(out / "memory_record_20250109012900.csv",
                ["Device_id", "Component", "Timestamp(us)", "Total Allocated(KB)", "Total Reserved(KB)", "Device"],
                [["0", r["Component"], r["Timestamp(us)"], kb(r["Total Allocated(MB)"]), kb(r["Total Reserved(MB)"]),
                  r["Device Type"]] for r in mr])
    import orjson

    tv = orjson.loads((src / "trace_view.json").read_bytes())
    py = {e["pid"] for e in tv if e.get("ph") == "M" and e.get("name") == "process_name"
          and e["args"]["name"] == "Python"}
    (out / "msprof_20250109012900.json").write_bytes(orjson.dumps([e for e in tv if e.get("pid") not in py]))
    return out.parent


def test_msprof_text_layout(real_data, tmp_path):
    run = real_data / TEXT_RUNS[2]
    prof_dir = _msprof_from(run, tmp_path)
    ref = load(real_data, TEXT_RUNS[2])
    for path in (prof_dir, prof_dir / "mindstudio_profiler_output"):
        p = read_ascend(path)
        assert p.meta["source"]["format"] == "msprof-text"
        k, rk = (x.events[x.events["cat"].isin(("kernel", "comm"))] for x in (p, ref))
        assert len(k) == len(rk) == 191  # both slices read
        assert int(k["dur_ns"].sum()) == int(rk["dur_ns"].sum())
        assert sorted(k["start_ns"] + p.meta["t0_ns"]) == sorted(rk["start_ns"] + ref.meta["t0_ns"])
        assert (k["corr"] >= 0).all()  # CANN connection ids from msprof_*.json
        assert (p.events["cat"] == "op").sum() == 0  # no Python process in msprof output
        # KB columns: same bytes as the MB columns of torch_npu's file
        a = p.memory["allocated_bytes"].dropna().sort_values().to_numpy()
        b = ref.memory.loc[ref.memory["kind"] == "sample", "allocated_bytes"].dropna().sort_values().to_numpy()
        assert np.array_equal(a, b)


def test_msprof_db_in_prof_folder(real_data, tmp_path):
    prof_dir = tmp_path / "PROF_000001_20231025_XYZ"
    prof_dir.mkdir()
    shutil.copy(real_data / f"{SRV}/full_db/msprof_0.db", prof_dir / "msprof_20231025.db")
    p = read_ascend(prof_dir)
    assert p.meta["source"]["format"] == "msprof-db"
    assert find_ranks(tmp_path) == [(0, prof_dir)]


@pytest.mark.parametrize("rel", [TEXT_RUNS[2], DB_RUNS[2], f"{SRV}/test_rank_0", SPARSE_RUNS[2]])
def test_meta_is_plain_json_and_store_round_trip(real_data, rel, tmp_path):
    import json

    from cann_nb.store import read_profile_dir, write_profile_dir

    prof = load(real_data, rel)
    json.dumps(prof.meta, allow_nan=False)  # no numpy scalars, no NaN
    (tmp_path / "p").mkdir()
    write_profile_dir(prof, tmp_path / "p")
    back = read_profile_dir(tmp_path / "p")
    back.validate()
    assert len(back.events) == len(prof.events) and list(back.events.columns) == list(prof.events.columns)
    assert back.meta["t0_ns"] == prof.meta["t0_ns"]
    assert (back.events["start_ns"].to_numpy() == prof.events["start_ns"].to_numpy()).all()


@pytest.mark.parametrize("rel", TEXT_RUNS[:6])
def test_l2_cache_joined_on_stream_and_task(real_data, rel):
    """l2_cache.csv joins kernels on (Stream Id, Task Id) - at Level0 the ids come from trace_view."""
    raw = rows(real_data / rel / "ASCEND_PROFILER_OUTPUT" / "l2_cache.csv")
    k = load(real_data, rel).events
    k = k[k["pmu_l2_victim_rate"].notna()]
    assert len(k) == len(raw)
    want = {(int(r["Stream Id"]), int(r["Task Id"])): (r["Op Name"], float(r["Victim Rate"])) for r in raw}
    got = {(int(s), int(t)): (n, v) for s, t, n, v in zip(k["stream_id"], k["task_id"], k["name"].astype(str),
                                                           k["pmu_l2_victim_rate"])}
    assert got == want


# -- an older (2024) torch_npu text export: hardware tasks without some ids -----------------------------
def _trace_view_2024(tmp_path: Path) -> Path:
    """A minimal trace_view.json as 2024's torch_npu wrote it for an Ascend910A: ids as numbers, and a
    hardware task without 'Model Id' (an AI_CPU task), so that column is float64 with a NaN: pandas 3
    hands out such a column's values read-only, and the importer wrote into them."""
    meta = [{"ph": "M", "name": "process_name", "pid": p, "tid": 0, "args": {"name": n}}
            for p, n in ((100, "Python"), (200, "CANN"), (800, "Ascend Hardware"))]
    host = [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 7, "ts": "1704161511422000.000",
             "dur": 20.0, "args": {"Sequence number": 1}}]
    hw = [{"ph": "X", "name": "Add_AiCore", "pid": 800, "tid": 3, "ts": f"17041615114220{30 + 10 * i}.500", "dur": 2.5,
           "args": {"Model Id": 4294967295, "Task Type": "AI_CORE", "Stream Id": 3, "Task Id": 10 + i}}
          for i in range(3)]
    hw.append({"ph": "X", "name": "Cast_AiCpu", "pid": 800, "tid": 3, "ts": "1704161511422090.000", "dur": 4.0,
               "args": {"Task Type": "AI_CPU", "Stream Id": 3, "Task Id": 20.0}})
    path = tmp_path / "trace_view.json"
    path.write_text(__import__("json").dumps(meta + host + hw))
    return path


def test_an_older_export_with_a_missing_id_imports(tmp_path):
    prof = read_ascend(_trace_view_2024(tmp_path)).validate()
    dev = prof.events[prof.events["device"] != "cpu"]
    assert len(dev) == 4 and set(dev["name"].astype(str)) == {"Add_AiCore", "Cast_AiCpu"}


def test_a_field_that_cannot_be_read_is_named(tmp_path, monkeypatch):
    from cann_nb.ingest.ascend import trace_view

    path = _trace_view_2024(tmp_path)
    monkeypatch.setattr(trace_view, "_numeric", lambda s: (_ for _ in ()).throw(ValueError("unreadable")))
    with pytest.raises(TraceFormatError, match=r"trace_view.json at Ascend Hardware event args 'Stream Id'"):
        read_ascend(path)
