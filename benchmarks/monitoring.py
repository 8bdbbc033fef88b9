"""Continuous monitoring overhead: the same served workload with and without monitoring, side by side.

    python benchmarks/monitoring.py                       # ~8 min: 2 workloads x 3 pairs x (30 s + 30 s)
    python benchmarks/monitoring.py --quick               # ~1 min smoke run (numbers are noisy)
    python benchmarks/monitoring.py --bytes-per-event     # only the memory-per-event measurement
    python benchmarks/monitoring.py --interleaved --interval 60 --seconds 200 --skip-bytes-per-event
                                                          # the precise decomposition (see run_interleaved)

Workload: a torch model (one intra-op thread) served from a thread in a closed loop (each request right
after the previous one), the way a single-worker model server runs. Each pair runs the loop for
``--seconds`` without monitoring (the plain function) and then for ``--seconds`` through
``cann_nb.start_continuous_monitoring(interval, sample_rate=0.05, fn=model)``; the order alternates
between pairs, so drift on this shared machine falls on both sides. The harness times every request
itself (outside the monitor), identically on both sides. Reported per workload (medians over pairs):

* throughput ratio (requests/s monitored / plain) -> overhead % = 1 - ratio;
* process CPU per request ratio (all threads: the served thread, the monitor's window thread, the host
  sampler) -> the CPU the monitoring costs, even where a spare core hides it from throughput;
* harness-measured P50 / P99 latency, plain vs monitored;
* from the windows: profiled vs unprofiled P50 (the profiler's cost on the 5 % of calls it records),
  the window thread's CPU per window and the window build time.

``--interval`` defaults to 10 s (six window rotations per minute, six times the default 60 s), so the
per-window work weighs six times more than at the defaults: an upper bound of the default overhead.
The one-time torch.profiler initialisation (1-2.5 s, once per process) is paid before the pairs and
reported apart.

``--bytes-per-event`` runs a loop of small torch ops under ``Profiler(mode="basic")`` in a fresh process
for several event counts and reports the growth of the process's peak RSS (collection + conversion +
the Profile) per kept event: the basis of ``Profiler.set_buffer_size``'s bytes-per-event estimate.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

os.environ.setdefault("KINETO_LOG_LEVEL", "99")


def _workloads(only: str | None = None):
    import torch

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 10)).eval()
    cnn = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 16 * 16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)).eval()
    loads = {
        "mlp (small requests)": (mlp, torch.randn(32, 256)),
        "cnn (heavier requests)": (cnn, torch.randn(8, 3, 64, 64)),
    }
    return {k: v for k, v in loads.items() if only is None or k.startswith(only)}


def _serve(fn, x, seconds: float) -> dict:
    """Closed loop in a thread for ``seconds``: request latencies (ns) and process CPU."""
    import torch

    lat: list[int] = []
    done = threading.Event()

    def loop():
        torch.set_num_threads(1)   # per thread: a new thread would otherwise start its own OpenMP team
        with torch.inference_mode():
            end = time.perf_counter() + seconds
            now = time.perf_counter_ns
            while time.perf_counter() < end:
                t = now()
                fn(x)
                lat.append(now() - t)
        done.set()

    cpu0, wall0 = time.process_time(), time.perf_counter()
    th = threading.Thread(target=loop, name="server")
    th.start()
    th.join()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    a = np.asarray(lat, dtype=np.float64)
    return {"requests": len(a), "wall_s": wall, "rps": len(a) / wall, "cpu_per_req_us": 1e6 * cpu / len(a),
            "p50_ms": float(np.percentile(a, 50)) / 1e6, "p99_ms": float(np.percentile(a, 99)) / 1e6}


def run_pairs(args) -> dict:
    import torch

    import cann_nb
    from cann_nb.collect.torch_collector import TorchCollector

    torch.set_num_threads(1)
    warm = TorchCollector.warm_up()
    out = {"torch_profiler_first_start_s": round(warm, 2), "interval_s": args.interval,
           "sample_rate": args.sample_rate, "seconds": args.seconds, "pairs": args.pairs, "workloads": {}}
    root = tempfile.mkdtemp(prefix="cann_nb_monbench_")
    for wname, (model, x) in _workloads(args.workload).items():
        with torch.inference_mode():
            for _ in range(50):
                model(x)
        pairs, windows = [], []
        for i in range(args.pairs):
            order = ("plain", "monitored") if i % 2 == 0 else ("monitored", "plain")
            res = {}
            for side in order:
                if side == "plain":
                    res[side] = _serve(model, x, args.seconds)
                else:
                    mon = cann_nb.start_continuous_monitoring(
                        interval=args.interval, sample_rate=args.sample_rate, fn=model, output_path=root,
                        name=f"bench{len(out['workloads'])}_{i}")
                    res[side] = _serve(mon, x, args.seconds)
                    cann_nb.stop_continuous_monitoring()
                    windows += [w for w in mon.windows if not w["partial"]]
            pairs.append(res)
            print(f"{wname} pair {i + 1}: plain {res['plain']['rps']:.1f} rps, monitored {res['monitored']['rps']:.1f} rps "
                  f"({100 * (1 - res['monitored']['rps'] / res['plain']['rps']):+.2f} % overhead); CPU/req "
                  f"{res['plain']['cpu_per_req_us']:.1f} vs {res['monitored']['cpu_per_req_us']:.1f} us", flush=True)
        ratio = [p["monitored"]["rps"] / p["plain"]["rps"] for p in pairs]
        cpu = [p["monitored"]["cpu_per_req_us"] / p["plain"]["cpu_per_req_us"] for p in pairs]
        prof_ratio = [w["profiled_latency_ns"]["p50"] / w["latency_ns"]["p50"] for w in windows
                      if w["profiled_latency_ns"].get("n") and w["latency_ns"].get("n")]
        out["workloads"][wname] = {
            "plain_rps": statistics.median(p["plain"]["rps"] for p in pairs),
            "monitored_rps": statistics.median(p["monitored"]["rps"] for p in pairs),
            "throughput_ratio": statistics.median(ratio),
            "overhead_pct": 100 * (1 - statistics.median(ratio)),
            "overhead_pct_per_pair": [round(100 * (1 - r), 2) for r in ratio],
            "cpu_per_request_ratio": statistics.median(cpu),
            "plain_p50_ms": statistics.median(p["plain"]["p50_ms"] for p in pairs),
            "monitored_p50_ms": statistics.median(p["monitored"]["p50_ms"] for p in pairs),
            "plain_p99_ms": statistics.median(p["plain"]["p99_ms"] for p in pairs),
            "monitored_p99_ms": statistics.median(p["monitored"]["p99_ms"] for p in pairs),
            "windows": len(windows),
            "profiled_share_pct": 100 * sum(w["profiled_calls"] for w in windows) / max(sum(w["calls"] for w in windows), 1),
            "profiled_vs_unprofiled_p50": statistics.median(prof_ratio) if prof_ratio else None,
            "window_thread_cpu_s": statistics.median(w["monitor_cpu_s"] for w in windows) if windows else None,
            "window_build_s": statistics.median(w["build_s"] for w in windows) if windows else None,
            "ops_per_request": None,
        }
    return out


def _thread_cpu() -> dict:
    """CPU seconds (user+system) of each live thread of this process, by native id (Linux /proc)."""
    out, tick = {}, os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _by_thread(before: dict, after: dict, names: dict) -> dict:
    """CPU seconds spent between two ``_thread_cpu`` snapshots, summed by Python thread name (threads
    Python does not know, e.g. torch's, as "native")."""
    out: dict = {}
    for tid, cpu in after.items():
        d = cpu - before.get(tid, 0.0)
        if d > 0:
            name = names.get(tid, "native")
            out[name] = out.get(name, 0.0) + d
    return out


def run_interleaved(args) -> dict:
    """One monitor (default settings) runs throughout; the serving thread alternates every
    ``--segment`` seconds between calling the model directly and through the monitor. Drift and the
    other processes on the machine fall on both sides alike, so the serving thread's own overhead
    (timing every call + the profiled bursts) is resolved to a fraction of a percent. The background
    work (window thread, host sampler, burst conversion) is measured as the process CPU not spent by
    the serving thread, and added; so is the bursts' cost (a burst records every thread, so it slows
    both sides alike): the share of time bursts record x the profiled calls' slowdown.
    overhead = serving-thread overhead + background CPU / serving CPU + burst cost."""
    import torch

    import cann_nb
    from cann_nb.collect.torch_collector import TorchCollector

    TorchCollector.warm_up()
    out = {"interval_s": args.interval, "sample_rate": args.sample_rate, "seconds": args.seconds,
           "segment_s": args.segment, "workloads": {}}
    root = tempfile.mkdtemp(prefix="cann_nb_monbench_")
    for wname, (model, x) in _workloads(args.workload).items():
        mon = cann_nb.start_continuous_monitoring(interval=args.interval, sample_rate=args.sample_rate, fn=model,
                                                  output_path=root, name=f"il{len(out['workloads'])}")
        segs = {"plain": [], "monitored": []}
        box = {}

        def loop():
            torch.set_num_threads(1)
            rng = np.random.default_rng(0)
            with torch.inference_mode():
                for _ in range(50):
                    model(x)
                cpu_start = time.thread_time()
                box["threads0"] = _thread_cpu()
                end = time.perf_counter() + args.seconds
                while time.perf_counter() < end:
                    order = ("plain", "monitored") if rng.random() < 0.5 else ("monitored", "plain")
                    for side in order:
                        fn = model if side == "plain" else mon
                        n, c0, w0 = 0, time.thread_time(), time.perf_counter()
                        seg_end = w0 + args.segment
                        while time.perf_counter() < seg_end:
                            fn(x)
                            n += 1
                        segs[side].append((time.thread_time() - c0, time.perf_counter() - w0, n))
                box["serving_cpu"] = time.thread_time() - cpu_start
                box["threads1"] = _thread_cpu()
                box["names"] = {t.native_id: t.name for t in threading.enumerate()}

        p0 = time.process_time()
        th = threading.Thread(target=loop, name="server")
        th.start()
        th.join()
        process_cpu = time.process_time() - p0
        cann_nb.stop_continuous_monitoring()
        pairs = min(len(segs["plain"]), len(segs["monitored"]))
        cpu_ratio = [(segs["monitored"][i][0] / segs["monitored"][i][2]) / (segs["plain"][i][0] / segs["plain"][i][2])
                     for i in range(pairs)]
        wall_ratio = [(segs["monitored"][i][1] / segs["monitored"][i][2]) / (segs["plain"][i][1] / segs["plain"][i][2])
                      for i in range(pairs)]
        windows = [w for w in mon.windows if not w["partial"]]
        background = max(process_cpu - box["serving_cpu"], 0.0)
        threads = _by_thread(box["threads0"], box["threads1"], box["names"])
        # the first window pays one-time costs (imports, the first Parquet write, torch.profiler's first
        # burst); a server pays them once per process, so they are reported apart from the steady state
        cpus = [w["monitor_cpu_s"] for w in windows]
        one_time = max(cpus[0] - statistics.median(cpus[1:]), 0.0) if len(cpus) > 2 else 0.0
        serving = statistics.median(cpu_ratio) - 1
        # a burst records every thread, so it slows plain and monitored segments alike: its cost is
        # the share of time it records x how much slower the calls it recorded were
        burst_share = sum(w.get("burst_s", 0.0) for w in windows) / max(sum(w["duration_ns"] for w in windows) / 1e9, 1e-9)
        ratios = [w["profiled_latency_ns"]["p50"] / w["latency_ns"]["p50"] for w in windows
                  if w["profiled_latency_ns"].get("n") and w["latency_ns"].get("n")]
        burst_cost = burst_share * max(statistics.median(ratios) - 1, 0.0) if ratios else 0.0
        out["workloads"][wname] = {
            "segment_pairs": pairs,
            "serving_thread_cpu_overhead_pct": 100 * serving,
            "serving_thread_cpu_overhead_iqr_pct": [100 * (float(np.percentile(cpu_ratio, q)) - 1) for q in (25, 75)],
            "wall_per_call_overhead_pct": 100 * (statistics.median(wall_ratio) - 1),
            "background_cpu_s": background, "serving_cpu_s": box["serving_cpu"],
            "background_pct_of_serving": 100 * background / box["serving_cpu"],
            "background_pct_of_core": 100 * background / args.seconds,
            "burst_time_share_pct": 100 * burst_share,
            "burst_cost_pct": 100 * burst_cost,
            "total_cpu_overhead_pct": 100 * serving + 100 * background / box["serving_cpu"] + 100 * burst_cost,
            "cpu_s_by_thread": {k: round(v, 2) for k, v in sorted(threads.items(), key=lambda kv: -kv[1])},
            "one_time_cpu_s": one_time,
            "steady_cpu_overhead_pct": 100 * serving + 100 * max(background - one_time, 0.0) / box["serving_cpu"]
            + 100 * burst_cost,
            "windows": len(windows),
            "profiled_share_of_monitored_pct": 100 * sum(w["profiled_calls"] for w in windows)
            / max(sum(w["calls"] for w in windows), 1),
            "profiled_vs_unprofiled_p50": statistics.median(
                w["profiled_latency_ns"]["p50"] / w["latency_ns"]["p50"] for w in windows
                if w["profiled_latency_ns"].get("n") and w["latency_ns"].get("n")) if windows else None,
            "window_thread_cpu_s": [w["monitor_cpu_s"] for w in windows],
            "window_build_s": [w["build_s"] for w in windows],
            "calls_per_window": [w["calls"] for w in windows],
        }
        r = out["workloads"][wname]
        print(f"{wname}: serving thread {r['serving_thread_cpu_overhead_pct']:+.2f} % CPU/call "
              f"(IQR {r['serving_thread_cpu_overhead_iqr_pct'][0]:+.2f}..{r['serving_thread_cpu_overhead_iqr_pct'][1]:+.2f}), "
              f"background {r['background_pct_of_serving']:.2f} %, bursts {r['burst_cost_pct']:.2f} % "
              f"({r['burst_time_share_pct']:.2f} % of the time) -> total {r['total_cpu_overhead_pct']:.2f} % "
              f"(steady state {r['steady_cpu_overhead_pct']:.2f} %, one-time {one_time:.2f} s); "
              f"wall/call {r['wall_per_call_overhead_pct']:+.2f} %; CPU s by thread {r['cpu_s_by_thread']}", flush=True)
    return out


_BPE_CHILD = """
import os, resource, sys, tempfile
os.environ["KINETO_LOG_LEVEL"] = "99"
import torch
from cann_nb import Profiler
from cann_nb.collect.torch_collector import TorchCollector
torch.set_num_threads(1)
TorchCollector.warm_up()
x = torch.randn(8, 8)
n = int(sys.argv[1])
with Profiler(output_path=tempfile.mkdtemp(), name="warm", mode="basic", collectors="torch"):
    for _ in range(200):
        torch.relu(x)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
prof = Profiler(output_path=tempfile.mkdtemp(), name="bpe", mode="basic", collectors="torch", store=False)
with prof:
    for _ in range(n):
        torch.relu(x)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
ev = int((prof.profile.events["cat"] != "step").sum())
print(ev, after - before)
"""


def bytes_per_event(counts=(20_000, 100_000, 300_000)) -> list[dict]:
    rows = []
    for n in counts:
        got = subprocess.run([sys.executable, "-c", _BPE_CHILD, str(n)], capture_output=True, text=True, timeout=600)
        if got.returncode != 0:
            raise RuntimeError(got.stderr[-2000:])
        events, grew = map(int, got.stdout.split()[-2:])
        rows.append({"ops": n, "events": events, "peak_rss_growth_bytes": grew,
                     "bytes_per_event": round(grew / events, 1) if events else None})
        print(f"{n:,} ops -> {events:,} events, peak RSS +{grew / 2**20:.1f} MiB, {grew / max(events, 1):.0f} B/event",
              flush=True)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=30.0, help="seconds per side of a pair (default 30)")
    p.add_argument("--pairs", type=int, default=3, help="plain/monitored pairs per workload (default 3)")
    p.add_argument("--interval", type=float, default=10.0, help="monitoring window in s (default 10)")
    p.add_argument("--sample-rate", type=float, default=0.05, help="share of calls profiled (default 0.05)")
    p.add_argument("--quick", action="store_true", help="6 s sides, 1 pair, 2 s windows")
    p.add_argument("--interleaved", action="store_true",
                   help="one monitor throughout, plain/monitored calls alternating every --segment s")
    p.add_argument("--segment", type=float, default=0.5, help="interleaved segment length in s (default 0.5)")
    p.add_argument("--bytes-per-event", action="store_true", help="only measure memory per collected event")
    p.add_argument("--skip-bytes-per-event", action="store_true", help="skip the memory-per-event measurement")
    p.add_argument("--json", default=None, help="write the results to this JSON file")
    p.add_argument("--workload", choices=("mlp", "cnn"), default=None, help="run only this workload")
    args = p.parse_args()
    if args.quick:
        args.seconds, args.pairs, args.interval = 6.0, 1, 2.0
    result = {"machine": f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d")}
    if not args.skip_bytes_per_event:
        result["bytes_per_event"] = bytes_per_event((20_000, 100_000) if args.quick else (20_000, 100_000, 300_000))
    if args.interleaved:
        result["interleaved"] = run_interleaved(args)
    elif not args.bytes_per_event:
        result.update(run_pairs(args))
    text = json.dumps(result, indent=1, default=float)
    print(text)
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
