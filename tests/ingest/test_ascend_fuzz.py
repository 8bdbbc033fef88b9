"""Property tests over Ascend CSV content: any input gives a valid Profile or a TraceFormatError naming
the file, and valid timestamps in any of the forms Ascend writes convert exactly."""

from __future__ import annotations

import csv
import io
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_nb.errors import TraceFormatError
from cann_nb.ingest.ascend import read_ascend
from cann_nb.ingest.ascend.units import us_to_ns

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ref_ns(text: str) -> int:
    return int((Decimal(text) * 1000).to_integral_value(ROUND_HALF_UP))


@st.composite
def us_number(draw, lo=0, hi=1_800_000_000_000_000):
    """A µs value as Ascend prints it: 0-6 decimals; returns (plain text, exact Decimal text)."""
    whole = draw(st.integers(lo, hi))
    digits = draw(st.integers(0, 6))
    frac = draw(st.integers(0, 10 ** digits - 1)) if digits else 0
    text = f"{whole}.{frac:0{digits}d}" if digits else str(whole)
    return text


def decorate(text: str, style: int) -> str:
    """The quirks of formats.md §2 (the CSV writer adds the outer quotes of the quoted form)."""
    return [text, text + "\t", " " + text + " ", text + "\t"][style]


bad_token = st.sampled_from(["abc", "1.2.3", "--1", "0x10", "12a", "1,5", "∞", "1e", ".", "+-3", "١٢٣"])


@st.composite
def kernel_table(draw):
    n = draw(st.integers(1, 12))
    rows, want = [], []
    valid = True
    for i in range(n):
        start = draw(us_number())
        dur = draw(us_number(0, 10 ** 7))
        s_style, d_style = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        start_cell, dur_cell = decorate(start, s_style), decorate(dur, d_style)
        corrupt = draw(st.integers(0, 30))
        if corrupt == 0:
            start_cell, valid = draw(bad_token), False
        elif corrupt == 1:
            dur_cell, valid = draw(st.sampled_from(["", "N/A"])), False
        elif corrupt == 2:
            dur_cell, valid = "-" + dur if dur.strip("0.") else dur, valid and not dur.strip("0.")
        name = draw(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                            min_size=1, max_size=20).filter(lambda t: t.strip() and t.strip() not in
                                                            ("N/A", "NA", "nan", "NaN", "None", "none", "NULL",
                                                             "null", "-", "n/a")))
        core = draw(st.sampled_from(["AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "HCCL", "COMMUNICATION", "N/A",
                                     "DSA_SQE", "AI_CPU"]))
        stream = draw(st.sampled_from(["2", "3", "N/A", "", "4294967295"]))
        pmu = draw(st.sampled_from(["0.5", "N/A", "", "x", "1e-3"]))
        rows.append([name, core, stream, start_cell, dur_cell, pmu, draw(st.sampled_from(["8", "N/A", ""]))])
        want.append((start, dur))
    return rows, want, valid


HEADER = ["Name", "Accelerator Core", "Stream ID", "Start Time(us)", "Duration(us)", "aic_mac_ratio", "Block Dim"]


def write_csv(folder: Path, header, rows, order) -> Path:
    f = folder / "kernel_details.csv"
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    w.writerow([header[i] for i in order])
    for r in rows:
        w.writerow([r[i] for i in order])
    f.write_text(buf.getvalue(), encoding="utf-8")
    return f


@SETTINGS
@given(kernel_table(), st.permutations(range(len(HEADER))))
def test_kernel_csv_fuzz(table, order):
    rows, want, valid = table
    with tempfile.TemporaryDirectory() as d:
        f = write_csv(Path(d), HEADER, rows, order)
        try:
            prof = read_ascend(f)
        except TraceFormatError as exc:
            assert "kernel_details.csv" in str(exc)
            assert not valid, f"valid input rejected: {exc}"
            return
    assert valid, "invalid input accepted"
    prof.validate()
    ev = prof.events
    k = ev[ev["cat"].isin(("kernel", "comm"))]
    assert len(k) == len(rows)
    if valid:
        assert int(k["dur_ns"].sum()) == sum(ref_ns(dur) for _, dur in want)
        starts = sorted((k["start_ns"] + prof.meta["t0_ns"]).tolist())
        assert starts == sorted(ref_ns(s) for s, _ in want)
        assert prof.meta["t0_ns"] == min(ref_ns(s) for s, _ in want)
    assert k["pmu_aic_mac_ratio"].dtype == np.float64


@SETTINGS
@given(st.lists(st.tuples(us_number(), st.integers(0, 3)), min_size=1, max_size=50))
def test_us_to_ns_exact(values):
    cells = pd.Series([decorate(v, style) for v, style in values] + ['"' + values[0][0] + '\t"'])
    got, miss = us_to_ns(cells)
    assert not miss.any()
    assert got.tolist() == [ref_ns(v) for v, _ in values] + [ref_ns(values[0][0])]


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes_after_header(blob):
    header = (",".join(HEADER) + "\r\n").encode()
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "kernel_details.csv"
        f.write_bytes(header + blob)
        try:
            read_ascend(f).validate()
        except TraceFormatError as exc:
            assert "kernel_details.csv" in str(exc)


@SETTINGS
@given(st.text(max_size=300), st.sampled_from(["memory_record.csv", "operator_memory.csv", "npu_module_mem.csv",
                                               "step_trace_time.csv", "kernel_details.csv"]))
def test_random_text_in_named_files(text, name):
    headers = {
        "memory_record.csv": "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
                             "Stream Ptr,Device Type\r\n",
        "operator_memory.csv": "Name,Size(KB),Allocation Time(us),Release Time(us),Allocation Total Allocated(MB),"
                               "Allocation Total Reserved(MB),Device Type\r\n",
        "npu_module_mem.csv": "Component,Timestamp(us),Total Reserved(MB),Device\r\n",
        "step_trace_time.csv": "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free\r\n",
        "kernel_details.csv": ",".join(HEADER) + "\r\n",
    }
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(parents=True)
        (out / name).write_text(headers[name] + text, encoding="utf-8", errors="surrogatepass") \
            if "\ud800" not in text else (out / name).write_bytes(headers[name].encode() + b"\xff")
        # a well-formed anchor so the folder is recognised even when the fuzzed file is dropped
        (out / "step_trace_time.csv").write_text("Step,Computing,Communication(Not Overlapped),Overlapped,"
                                                 "Communication,Free\r\n1,1,1,1,1,1\r\n") \
            if name != "step_trace_time.csv" else None
        try:
            read_ascend(out.parent).validate()
        except TraceFormatError as exc:
            assert str(out) in str(exc) or str(out.parent) in str(exc)
