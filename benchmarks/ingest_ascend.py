"""Import time of the Ascend importer on the largest real samples and on scaled-up copies of them.

    python benchmarks/ingest_ascend.py [--scale 100] [--repeat 3] [--keep DIR]

Real samples come from ``shared/data/real`` (or CANN_NB_REAL_DATA). The scaled cases are built in a
temporary folder from real files - kernel_details.csv and memory_record.csv rows, trace_view.json
events and SQLite TASK/COMPUTE_TASK_INFO/TASK_PMU_INFO rows repeated ``scale`` times, each copy
shifted in time past the previous one (timestamps rewritten exactly as integer ns) - so the files
keep every real quirk (TABs, tripled quotes, N/A). Each case runs in a fresh subprocess so the peak
RSS is its own. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def real_dir() -> Path:
    return Path(os.environ.get("CANN_NB_REAL_DATA") or ROOT.parent / "shared" / "data" / "real")


REAL_CASES = [
    ("text, Level2 LLM rank 2 (kernel_details 2.6k rows, memory_record 19k)",
     "msinsight/test/st/level2/rank_2_ascend_pt"),
    ("text, Level2 CNN rank 1 (trace_view 10k events)", "msinsight/test/data/pytorch/text/level2/rank1_ascend_pt"),
    ("SQLite, Level1 CNN rank 0 (ascend_pytorch_profiler_0.db)",
     "msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"),
    ("SQLite, Level2 CNN rank 1", "msinsight/test/data/pytorch/db/level2/rank1_ascend_pt"),
]


def size_mb(p: Path) -> float:
    files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file()]
    return sum(f.stat().st_size for f in files) / 1e6


# ------------------------------------------------------------------------------------------------
# scaled copies


def _shift_us_strings(col, offsets_ns):
    """Epoch-µs text cells (+TAB) shifted by integer ns offsets, exactly, vectorised."""
    import numpy as np

    from cann_nb.ingest.ascend.units import us_to_ns

    ns, miss = us_to_ns(col)
    out = ns + offsets_ns
    whole, frac = np.divmod(out, 1000)
    txt = [f"{w}.{f:03d}\t" for w, f in zip(whole.tolist(), frac.tolist())]
    return [c if m else t for c, t, m in zip(col.tolist(), txt, miss.tolist())]


def scaled_text(src: Path, dst: Path, scale: int) -> Path:
    """kernel_details.csv + memory_record.csv (+ profiler_info) repeated ``scale`` times."""
    import numpy as np
    import pandas as pd

    out = dst / "scaled_text_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    for f in src.glob("profiler_*.json"):
        shutil.copy(f, out.parent)
    for name, cols in (("kernel_details.csv", ["Start Time(us)"]), ("memory_record.csv", ["Timestamp(us)"])):
        df = pd.read_csv(src / "ASCEND_PROFILER_OUTPUT" / name, dtype=str, keep_default_na=False)
        from cann_nb.ingest.ascend.units import us_to_ns

        ns, _ = us_to_ns(df[cols[0]])
        span = int(ns.max() - ns.min()) + 1_000_000
        big = pd.concat([df] * scale, ignore_index=True)
        offsets = np.repeat(np.arange(scale, dtype=np.int64) * span, len(df))
        for c in cols:
            big[c] = _shift_us_strings(big[c], offsets)
        big.to_csv(out / name, index=False)
    return out.parent


def scaled_trace_view(src: Path, dst: Path, scale: int) -> Path:
    """trace_view.json events repeated ``scale`` times (ts strings and flow ids shifted exactly)."""
    import orjson

    events = orjson.loads((src / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_bytes())
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]

    def ns(ts):
        w, _, f = str(ts).partition(".")
        return int(w) * 1000 + int((f + "000")[:3])

    tss = [ns(e["ts"]) for e in body if e.get("ts") is not None]
    span = max(tss) - min(tss) + 1_000_000
    out_events = list(meta)
    for k in range(scale):
        off = k * span
        for e in body:
            e2 = dict(e)
            if e.get("ts") is not None:
                t = ns(e["ts"]) + off
                e2["ts"] = f"{t // 1000}.{t % 1000:03d}"
            if e.get("cat") == "async_npu" and isinstance(e.get("id"), int):
                e2["id"] = e["id"] + off
            out_events.append(e2)
    out = dst / "scaled_trace_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "trace_view.json").write_bytes(orjson.dumps(out_events))
    return out.parent


def scaled_db(src_db: Path, dst: Path, scale: int) -> Path:
    """TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO repeated ``scale`` times with new globalTaskIds."""
    out = dst / "ascend_pytorch_profiler_0.db"
    shutil.copy(src_db, out)
    con = sqlite3.connect(out)
    (lo, hi), (mx,) = con.execute("SELECT min(startNs), max(endNs) FROM TASK").fetchone(), \
        con.execute("SELECT max(globalTaskId) FROM TASK").fetchone()
    span, step = hi - lo + 1_000_000, mx + 1
    tcols = [r[1] for r in con.execute("PRAGMA table_info(TASK)")]
    ccols = [r[1] for r in con.execute("PRAGMA table_info(COMPUTE_TASK_INFO)")]
    for k in range(1, scale):
        sel_t = ", ".join(f"startNs + {k * span}" if c == "startNs" else f"endNs + {k * span}" if c == "endNs" else
                          f"globalTaskId + {k * step}" if c == "globalTaskId" else f'"{c}"' for c in tcols)
        con.execute(f"INSERT INTO TASK SELECT {sel_t} FROM TASK WHERE globalTaskId < {step}")
        sel_c = ", ".join(f"globalTaskId + {k * step}" if c == "globalTaskId" else f'"{c}"' for c in ccols)
        con.execute(f"INSERT INTO COMPUTE_TASK_INFO SELECT {sel_c} FROM COMPUTE_TASK_INFO WHERE globalTaskId < {step}")
        con.execute(f"INSERT INTO TASK_PMU_INFO SELECT globalTaskId + {k * step}, name, value FROM TASK_PMU_INFO "
                    f"WHERE globalTaskId < {step}")
    con.commit()
    con.close()
    return out


# ------------------------------------------------------------------------------------------------
# measuring


def run_one(path: str, repeat: int) -> dict:
    from cann_nb.ingest.ascend import read_ascend

    best, best_cpu = float("inf"), float("inf")
    prof = None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        prof = read_ascend(path)
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    ev = prof.events
    return {"seconds": best, "cpu_seconds": best_cpu, "events": len(ev), "device_tasks": int(ev["cat"].isin(["kernel", "comm", "memcpy"]).sum()),
            "memory": len(prof.memory), "counters": len(prof.counters), "format": prof.meta["source"]["format"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(label: str, path: Path, repeat: int) -> dict:
    cmd = [sys.executable, __file__, "--one", str(path), "--repeat", str(repeat)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    r = json.loads(res.stdout.strip().splitlines()[-1])
    r.update(label=label, mb=size_mb(path))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=100)
    ap.add_argument("--db-scale", type=int, default=500)
    ap.add_argument("--trace-scale", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--one")
    ap.add_argument("--keep", help="build the scaled copies here and keep them")
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_one(a.one, a.repeat)))
        return
    real = real_dir()
    rows = []
    for label, rel in REAL_CASES:
        if (real / rel).exists():
            rows.append(measure(label, real / rel, a.repeat))
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="cann_nb_ascend_bench_"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        st = real / "msinsight/test/st/level2/rank_2_ascend_pt"
        cnn = real / "msinsight/test/data/pytorch/text/level2/rank1_ascend_pt"
        db = real / "msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"
        if st.exists():
            p = scaled_text(st, tmp, a.scale)
            rows.append(measure(f"text x{a.scale}: LLM rank 2 kernel_details + memory_record", p, 1))
        if cnn.exists():
            p = scaled_trace_view(cnn, tmp, a.trace_scale)
            rows.append(measure(f"trace_view.json x{a.trace_scale}: CNN rank 1 (host+device+flows+counters)", p, 1))
        if db.exists():
            p = scaled_db(db, tmp, a.db_scale)
            rows.append(measure(f"SQLite x{a.db_scale}: TASK/COMPUTE_TASK_INFO/TASK_PMU_INFO", p, 1))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs (load average {load:.1f} at the end); best of "
          f"{a.repeat} for real samples, 1 run for scaled copies; each case in a fresh process\n")
    print("| case | format | input MB | events | device tasks | memory rows | counters | wall s | CPU s | "
          "events/s (wall) | peak RSS MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        rate = r["events"] / r["seconds"] if r["seconds"] else 0
        print(f"| {r['label']} | {r['format']} | {r['mb']:.1f} | {r['events']:,} | {r['device_tasks']:,} | "
              f"{r['memory']:,} | {r['counters']:,} | {r['seconds']:.3f} | {r['cpu_seconds']:.3f} | {rate:,.0f} | "
              f"{r['peak_rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
