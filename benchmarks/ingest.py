"""Kineto trace ingest benchmark: cann_nb.read_kineto vs json.load / orjson / HolisticTraceAnalysis.

    python benchmarks/ingest.py                 # 1,000,000 events, 3 runs each, writes benchmarks/README.md
    python benchmarks/ingest.py --events 200000 --runs 1 --no-readme --no-hta

The trace is generated (deterministic, seed 0) in the schema PyTorch 2.x's Kineto writes for a CUDA
run with record_shapes and profile_memory: cpu_op trees with External id / Input Dims, cudaLaunchKernel
and cudaMemcpyAsync runtime calls, kernel and gpu_memcpy activities with their full argument sets, ac2g
flows, ``[memory]`` instants, ProfilerStep annotations, process/thread metadata and
``baseTimeNanoseconds`` with float microsecond timestamps carrying ns decimals.

Every measurement runs in its own child process (wall time of the load itself, peak RSS of that
process from getrusage), so one tool's memory never inflates another's. HTA 0.5.0 needs pandas<3, so
it runs from its own virtual environment (created on first use under benchmarks/results/).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"                     # git-ignored: generated traces and the HTA venv
HTA_VENV = RESULTS / ".venv-hta"
README = HERE / "README.md"
HEADING = "## Ingest (Kineto)"

KERNELS = (
    ("ampere_sgemm_128x64_tn", "aten::addmm"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar"
     "<at::native::(anonymous namespace)::clamp_min_kernel_cuda>(at::TensorIteratorBase&, c10::Scalar)"
     "::{lambda()#1}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, float, "
     "at::detail::Array<char*, 2>)", "aten::relu"),
    ("void cudnn::cnn::conv2d_grouped_direct_kernel<float, float, float, float, float, true, false, 0, 0, 0>"
     "(cudnn::cnn::GroupedDirectFpropParams, float const*, float const*, float*, float, float, "
     "cudnnNanPropagation_t, float const*, float const*, cudnnActivationMode_t)", "aten::cudnn_convolution"),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
     "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
     "float, float>, unsigned int, float, 4>)", "aten::mean"),
)
PARENT_OPS = {"aten::addmm": "aten::linear", "aten::relu": "aten::relu_", "aten::cudnn_convolution":
              "aten::conv2d", "aten::mean": "aten::adaptive_avg_pool2d"}


# --------------------------------------------------------------------------------------------------
# generator
# --------------------------------------------------------------------------------------------------
def generate(path: Path, n_events: int = 1_000_000, seed: int = 0) -> int:
    """Write a Kineto trace of about ``n_events`` events to ``path``; return the exact count."""
    import random

    import orjson

    rnd = random.Random(seed)
    pid, tid, dev, stream = 4242, 4242, 0, 7
    base_ns = 1_711_929_600_000_000_000          # a 3-month boundary, as Kineto floors it
    host = 1_200_000_000_000 * 1000 + 123_456    # ns after base (about 14 days in), odd ns on purpose
    gpu = host
    corr = 1000
    ext = 1
    ev_idx = 0
    allocated = 0
    live: list[tuple[int, int]] = []
    events: list[dict] = []
    meta = [
        {"name": "process_name", "ph": "M", "ts": host / 1000, "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"name": "process_labels", "ph": "M", "ts": host / 1000, "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
        {"name": "process_name", "ph": "M", "ts": host / 1000, "pid": dev, "tid": 0, "args": {"name": "python"}},
        {"name": "process_labels", "ph": "M", "ts": host / 1000, "pid": dev, "tid": 0, "args": {"labels": "GPU 0"}},
        {"name": "thread_name", "ph": "M", "ts": host / 1000, "pid": dev, "tid": stream,
         "args": {"name": f"stream {stream} "}},
        {"name": "thread_name", "ph": "M", "ts": host / 1000, "pid": pid, "tid": tid,
         "args": {"name": f"thread {tid} (python)"}},
    ]
    events.extend(meta)
    start_ns = host

    def us(ns: int) -> float:
        return ns / 1000

    step = 0
    step_start = host
    step_index = len(events)
    events.append(None)  # placeholder for the first ProfilerStep annotation
    while len(events) < n_events - 8:
        kname, op = KERNELS[rnd.randrange(len(KERNELS))]
        parent_op = PARENT_OPS[op]
        batch = rnd.choice((8, 16, 32, 64))
        dims = [[batch, 512], [512, 512], [512]] if op == "aten::addmm" else [[batch, 64, 56, 56]]
        types = ["float"] * len(dims)
        memcpy = rnd.random() < 0.08
        # host side: parent op > child op > runtime launch
        t0 = host
        p_dur = rnd.randint(20_000, 60_000)
        c_start = t0 + rnd.randint(2_000, 5_000)
        c_dur = p_dur - (c_start - t0) - rnd.randint(1_000, 3_000)
        r_start = c_start + rnd.randint(1_000, 3_000)
        r_dur = rnd.randint(3_000, c_dur - (r_start - c_start) - 500)
        ext += 2
        ev_idx += 2
        events.append({"ph": "X", "cat": "cpu_op", "name": parent_op, "pid": pid, "tid": tid, "ts": us(t0),
                       "dur": us(p_dur), "args": {"External id": ext - 1, "Record function id": 0,
                                                  "Input Dims": dims, "Input type": types, "Ev Idx": ev_idx - 1}})
        events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": pid, "tid": tid, "ts": us(c_start),
                       "dur": us(c_dur), "args": {"External id": ext, "Record function id": 0,
                                                  "Input Dims": dims, "Input type": types, "Ev Idx": ev_idx}})
        nbytes = batch * 512 * 4
        allocated += nbytes
        live.append((0x7F0000000000 + ext * 4096, nbytes))
        events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid, "tid": tid,
                       "ts": us(c_start + 700), "args": {"Total Reserved": 2 << 30, "Total Allocated": allocated,
                                                         "Bytes": nbytes, "Addr": live[-1][0], "Device Id": dev,
                                                         "Device Type": 1, "Ev Idx": ev_idx}})
        corr += 1
        if memcpy:
            rt_name, cbid = "cudaMemcpyAsync", 41
        else:
            rt_name, cbid = "cudaLaunchKernel", 211
        events.append({"ph": "X", "cat": "cuda_runtime", "name": rt_name, "pid": pid, "tid": tid, "ts": us(r_start),
                       "dur": us(r_dur), "args": {"External id": ext, "cbid": cbid, "correlation": corr}})
        events.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": us(r_start), "cat": "ac2g",
                       "name": "ac2g"})
        g_start = max(gpu, r_start + rnd.randint(5_000, 20_000))
        if memcpy:
            g_dur = rnd.randint(2_000, 200_000)
            events.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": dev,
                           "tid": stream, "ts": us(g_start), "dur": us(g_dur),
                           "args": {"External id": ext, "device": dev, "context": 1, "stream": stream,
                                    "correlation": corr, "bytes": nbytes,
                                    "memory bandwidth (GB/s)": nbytes / g_dur}})
        else:
            g_dur = rnd.randint(1_500, 400_000)
            events.append({"ph": "X", "cat": "kernel", "name": kname, "pid": dev, "tid": stream, "ts": us(g_start),
                           "dur": us(g_dur), "args": {"External id": ext, "queued": 0, "device": dev, "context": 1,
                                                      "stream": stream, "correlation": corr,
                                                      "registers per thread": 64, "shared memory": 16384,
                                                      "blocks per SM": 3.2, "warps per SM": 25.6,
                                                      "grid": [batch * 4, 1, 1], "block": [256, 1, 1],
                                                      "est. achieved occupancy %": 50}})
        events.append({"ph": "f", "id": corr, "pid": dev, "tid": stream, "ts": us(g_start), "cat": "ac2g",
                       "name": "ac2g", "bp": "e"})
        gpu = g_start + g_dur + rnd.randint(500, 3_000)
        if len(live) > 64:  # free the oldest block
            addr, size = live.pop(0)
            allocated -= size
            events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid,
                           "tid": tid, "ts": us(t0 + p_dur - 300),
                           "args": {"Total Reserved": 2 << 30, "Total Allocated": allocated, "Bytes": -size,
                                    "Addr": addr, "Device Id": dev, "Device Type": 1, "Ev Idx": ev_idx}})
        host = t0 + p_dur + rnd.randint(1_000, 10_000)
        if len(events) - step_index > 20_000:       # close the step, open the next
            events[step_index] = {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid,
                                  "tid": tid, "ts": us(step_start), "dur": us(host - 500 - step_start),
                                  "args": {"External id": 0, "Record function id": 0, "Ev Idx": 0}}
            step += 1
            step_start = host
            step_index = len(events)
            events.append(None)
    events[step_index] = {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid,
                          "tid": tid, "ts": us(step_start), "dur": us(host - step_start),
                          "args": {"External id": 0, "Record function id": 0, "Ev Idx": 0}}
    events.append({"ph": "X", "cat": "Trace", "ts": us(start_ns), "dur": us(max(host, gpu) - start_ns),
                   "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
    events.append({"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces",
                   "tid": "Trace PyTorch Profiler", "ts": us(start_ns)})
    events.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "",
                   "ts": us(max(host, gpu) + 1000)})
    doc = {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85_899_345_920,
                              "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                              "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
                              "sharedMemPerBlock": 49152, "numSms": 108, "regsPerMultiprocessor": 65536,
                              "sharedMemPerBlockOptin": 166912, "sharedMemPerMultiprocessor": 167936}],
        "cupti_version": 24, "cuda_runtime_version": 12080, "cuda_driver_version": 12080,
        "record_shapes": 1, "profile_memory": 1,
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": base_ns,
        "traceEvents": events,
        "traceName": str(path),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(doc))
    return len(events)


# --------------------------------------------------------------------------------------------------
# one measurement (runs in a child process)
# --------------------------------------------------------------------------------------------------
def _child(mode: str, path: str) -> dict:
    """Time one load in this (fresh) process: imports first, then the clock and the load alone."""
    import gc
    import resource

    if mode == "cann_nb":
        sys.path.insert(0, str(HERE.parent))
        from cann_nb.ingest.kineto import read_kineto

        def load():
            prof = read_kineto(path)
            return len(prof.events) + len(prof.memory)
    elif mode in ("json", "json_nogc"):
        def load():
            with open(path) as f:
                return len(json.load(f)["traceEvents"])
    elif mode in ("orjson", "orjson_nogc"):
        import orjson

        def load():
            with open(path, "rb") as f:
                return len(orjson.loads(f.read())["traceEvents"])
    elif mode == "hta":
        from hta.trace_analysis import TraceAnalysis

        def load():
            ta = TraceAnalysis(trace_dir=str(Path(path).parent))
            return sum(len(tr) for tr in ta.t.traces.values())
    else:
        raise SystemExit(f"unknown mode {mode}")
    if mode.endswith("nogc"):
        gc.disable()
    def cpu_now() -> float:   # this process and any worker processes it waited for (HTA may use a pool)
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    c0 = cpu_now()
    t = time.perf_counter()
    n = load()
    wall = time.perf_counter() - t
    cpu = cpu_now() - c0
    return {"mode": mode, "wall_s": wall, "cpu_s": cpu, "peak_rss_mb": _peak_rss_mb(), "rows": n}


def _peak_rss_mb() -> float:
    """VmHWM of this process (ru_maxrss would inherit the parent's peak across fork+exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _ensure_hta() -> Path | None:
    py = HTA_VENV / "bin" / "python"
    if py.exists():
        check = subprocess.run([str(py), "-c", "import hta.trace_analysis"], capture_output=True)
        if check.returncode == 0:
            return py
    print("creating", HTA_VENV, "(HolisticTraceAnalysis 0.5.0 with pandas<3)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(HTA_VENV)], check=True)
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "HolisticTraceAnalysis==0.5.0", "pandas<3"])
    return py if r.returncode == 0 else None


def _run_child(mode: str, path: Path, python: str | None = None) -> dict:
    out = subprocess.run([python or sys.executable, str(Path(__file__).resolve()), "--child", mode, str(path)],
                         capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    if out.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _summary(mode: str, rows: list[dict]) -> dict:
    walls = [r["wall_s"] for r in rows]
    return {"mode": mode, "wall_s": statistics.median(walls), "wall_min_s": min(walls),
            "cpu_s": statistics.median(r["cpu_s"] for r in rows),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in rows), "rows": rows[0]["rows"], "runs": len(rows)}


def _measure_all(modes: list[tuple[str, str | None, int]], path: Path) -> dict:
    """Round-robin over the modes (one run of each per round), so that a change in the machine's load
    during the benchmark hits every loader alike; ``modes`` holds (mode, python, runs)."""
    rows: dict[str, list] = {m: [] for m, _, _ in modes}
    for round_ in range(max(r for _, _, r in modes)):
        for mode, python, runs in modes:
            if round_ < runs:
                rows[mode].append(_run_child(mode, path, python))
                print(mode, rows[mode][-1], flush=True)
    return {m: _summary(m, r) for m, r in rows.items()}


LABELS = {
    "cann_nb": "cann_nb `read_kineto` (parse + full Profile: nesting, flows, memory)",
    "json": "`json.load` (parse only)",
    "json_nogc": "`json.load`, gc disabled (parse only)",
    "orjson": "`orjson.loads` (parse only)",
    "orjson_nogc": "`orjson.loads`, gc disabled (parse only)",
    "hta": "HolisticTraceAnalysis 0.5.0 `TraceAnalysis` (pandas 2)",
}


def _table(res: dict, n_events: int, size_mb: float, cmd: str) -> str:
    ours = res["cann_nb"]
    lines = [HEADING, "",
             f"One Kineto GPU trace of {n_events:,} events ({size_mb:.0f} MB of JSON), generated by "
             "`benchmarks/ingest.py` (cpu_op trees with shapes, cuda_runtime, kernel, gpu_memcpy, ac2g flows, "
             "`[memory]` instants, steps). Each number is the median of the runs (round-robin over the "
             "loaders, each run a fresh child process timing only the load, imports excluded); CPU is user+system "
             "time of that process, peak RSS its VmHWM. CPU time is the steadier figure on a shared machine.", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work while measured), "
             f"Python {platform.python_version()}, {_versions()}, {time.strftime('%Y-%m-%d')}.", "",
             "| loader | wall (s) | CPU (s) | peak RSS (MB) | its time / cann_nb's (wall) | (CPU) |",
             "|---|---:|---:|---:|---:|---:|"]
    for mode, label in LABELS.items():
        if mode not in res:
            continue
        r = res[mode]
        ratio, cratio = r["wall_s"] / ours["wall_s"], r["cpu_s"] / ours["cpu_s"]
        lines.append(f"| {label} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['peak_rss_mb']:.0f} | "
                     + ("- | - |" if mode == "cann_nb" else f"{ratio:.2f}x | {cratio:.2f}x |"))
    goals = []
    if "hta" in res:
        sp, cp = res["hta"]["wall_s"] / ours["wall_s"], res["hta"]["cpu_s"] / ours["cpu_s"]
        goals.append(f"- >= 8x faster than HTA: **{sp:.1f}x** wall, **{cp:.1f}x** CPU "
                     f"({'met' if min(sp, cp) >= 8 else 'met on ' + ('wall' if sp >= 8 else 'CPU') if max(sp, cp) >= 8 else 'NOT met'})")
    goals.append(f"- peak RSS < 1.5 GB: **{ours['peak_rss_mb']:.0f} MB** "
                 f"({'met' if ours['peak_rss_mb'] < 1536 else 'NOT met'})")
    if "json_nogc" in res:
        q, cq = ours["wall_s"] / res["json_nogc"]["wall_s"], ours["cpu_s"] / res["json_nogc"]["cpu_s"]
        goals.append(f"- within 1.5x of `json.load` with gc off: **{q:.2f}x** wall, **{cq:.2f}x** CPU "
                     f"({'met' if max(q, cq) <= 1.5 else 'NOT met on ' + ('wall' if q > 1.5 else 'CPU')})")
    lines += ["", "Goals:", *goals, "",
              "- What each loader ends with: `json`/`orjson` a tree of Python dicts (nothing interpreted); HTA "
              "a DataFrame of the X events with symbol ids; cann_nb the whole Profile: events with categories, "
              "devices, tracks, parent/depth nesting, CUPTI links from the ac2g flows, shapes, plus the memory "
              "table with each allocation's owning op, and the meta dict. `rows` in the log: HTA keeps "
              f"{res['hta']['rows']:,} rows, cann_nb {ours['rows']:,} (events + memory)." if "hta" in res else
              "- What each loader ends with: `json`/`orjson` a tree of Python dicts; cann_nb the whole Profile.",
              "- cann_nb streams the events array in 1 MiB pieces (msgspec structs when msgspec is installed, "
              "orjson dicts otherwise) and keeps only numpy columns, hence the low peak RSS; without msgspec the "
              "CPU time is about 30 % higher.",
              "- Wall times swing with the load of this shared 2-core machine (other benchmarks ran alongside); "
              "CPU seconds are the steadier comparison.",
              "", "Reproduce:", "", "```bash", cmd, "```", ""]
    return "\n".join(lines)


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("orjson", "msgspec", "pandas", "numpy"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} not installed" + (" (read_kineto uses its orjson path)" if pkg == "msgspec" else ""))
    return ", ".join(out)


def _write_readme(section: str) -> None:
    text = README.read_text() if README.exists() else "# Benchmarks\n"
    start = text.find(HEADING)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + ("\n" + text[nxt + 1:] if nxt >= 0 else "")
    README.write_text(text.rstrip("\n") + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-hta", action="store_true", help="skip HolisticTraceAnalysis")
    ap.add_argument("--no-readme", action="store_true", help="print the table only")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(*args.child)))
        return 0
    path = RESULTS / f"ingest_{args.events}" / "rank-0.pt.trace.json"
    if not path.exists():
        t = time.perf_counter()
        n = generate(path, args.events)
        print(f"generated {path} ({n:,} events) in {time.perf_counter() - t:.1f} s", flush=True)
    n_events = _count(path)
    modes = [(m, None, args.runs) for m in ("cann_nb", "json", "json_nogc", "orjson", "orjson_nogc")]
    if not args.no_hta:
        py = _ensure_hta()
        if py is None:
            print("HTA could not be installed; skipped", file=sys.stderr)
        else:
            modes.append(("hta", str(py), max(1, min(args.runs, 3))))
    res = _measure_all(modes, path)
    cmd = "python benchmarks/ingest.py" + ("" if args.events == 1_000_000 else f" --events {args.events}") + \
        ("" if args.runs == 3 else f" --runs {args.runs}")
    section = _table(res, n_events, path.stat().st_size / 1e6, cmd)
    print(section)
    if not args.no_readme:
        _write_readme(section)
    return 0


def _count(path: Path) -> int:
    """Events in the generated trace (every event has exactly one "ph" key; no parse needed)."""
    return path.read_bytes().count(b'"ph":')


if __name__ == "__main__":
    raise SystemExit(main())
