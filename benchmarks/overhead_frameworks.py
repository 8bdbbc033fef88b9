"""Overhead of %%cann_profile on TensorFlow and MindSpore cells against bare code and each framework's bare
profiler, side by side in one IPython shell (the TensorFlow/MindSpore counterpart of overhead.py).

Workloads (CPU, no downloads): 20 ``predict_on_batch`` of a small Keras MLP (32 -> 256 -> 256 -> 10,
batch 64) and 20 forward passes of the same MindSpore network in PyNative mode. Each cell runs
interleaved round by round as:

  bare      the cell as is
  profiler  the framework's own profiler around it: ``tf.profiler.experimental.start/stop`` (the
            XSpace written at stop included) / ``mindspore.profiler.profile(CPU,
            tensorboard_trace_handler(DIR, analyse_flag=False))`` start/stop
  cann      ``%%cann_profile --no-display`` (auto: the framework's collector + host), split into in-cell time
            (collectors started -> stopped, incl. the framework profiler's stop) and post-processing
            (reading the framework's files, merging, the store write)
  no host   ``--collectors tensorflow`` / ``mindspore``: the same without the host sampler thread

    python benchmarks/overhead_frameworks.py [--rounds 9] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from _shell import run_timed, timed_shell  # noqa: E402  (benchmarks/_shell.py)

SETUP = {
    "tensorflow": """
import numpy as np, tempfile, tensorflow as tf
model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(256, activation="relu"),
                             tf.keras.layers.Dense(256, activation="relu"), tf.keras.layers.Dense(10)])
x = np.random.rand(64, 32).astype("float32")
def work():
    for _ in range(20):
        model.predict_on_batch(x)
def own_profiler():
    tf.profiler.experimental.start(tempfile.mkdtemp())
    work()
    tf.profiler.experimental.stop()
""",
    "mindspore": """
import numpy as np, tempfile, mindspore as ms
from mindspore import nn
from mindspore.profiler import ProfilerActivity, profile, tensorboard_trace_handler
ms.set_device("CPU")
net = nn.SequentialCell([nn.Dense(32, 256), nn.ReLU(), nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 10)])
xm = ms.Tensor(np.random.rand(64, 32).astype("float32"))
def work():
    for _ in range(20):
        net(xm)
def own_profiler():
    prof = profile(activities=[ProfilerActivity.CPU], start_profile=False,
                   on_trace_ready=tensorboard_trace_handler(tempfile.mkdtemp(), analyse_flag=False))
    prof.start()
    work()
    prof.stop()
""",
}
CELLS = {"bare": "work()", "profiler": "own_profiler()", "cann": "%%cann_profile -n bench --no-display\nwork()",
         "cann_no_host": "%%cann_profile -n bench --no-display --collectors FW\nwork()"}


def measure(rounds: int) -> dict:
    ip, runtime, post = timed_shell()
    results = {}
    for framework, setup in SETUP.items():
        ip.run_cell(setup)
        cells = {k: v.replace("FW", framework) for k, v in CELLS.items()}
        for cell in cells.values():   # warm up: first-use costs of each profiler
            ip.run_cell(cell)
        times = {k: [] for k in cells}
        posts = {"cann": [], "cann_no_host": []}
        for _ in range(rounds):
            for mode, cell in cells.items():
                total, spent = run_timed(ip, post, cell, f"{framework}/{mode}")
                if mode in posts:
                    posts[mode].append(spent)
                times[mode].append(total)
        med = {k: statistics.median(v) for k, v in times.items()}
        collectors = runtime.last.meta["collectors"]
        assert collectors[framework]["status"] == "ok", collectors
        ip.run_cell("%%cann_profile -n bench --no-display\nwork()")   # auto: the framework chosen from work()
        assert framework in runtime.last.meta["collectors"], runtime.last.meta["collectors"]
        results[framework] = {
            "bare_ms": med["bare"] * 1e3, "profiler_ms": med["profiler"] * 1e3, "cann_ms": med["cann"] * 1e3,
            "cann_no_host_ms": med["cann_no_host"] * 1e3, "post_ms": statistics.median(posts["cann"]) * 1e3,
            "profiler_over_bare": med["profiler"] / med["bare"], "cann_over_profiler": med["cann"] / med["profiler"],
            "no_host_over_profiler": med["cann_no_host"] / med["profiler"], "events": len(runtime.last.events),
        }
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    os.environ["CANN_NB_DIR"] = tempfile.mkdtemp(prefix="cann_nb_bench_")
    res = measure(args.rounds)
    if args.markdown:
        print("| framework | events | bare ms | own profiler ms | cann in cell ms | without host sampler ms | "
              "cann post ms | own/bare | cann/own | without host/own |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for fw, r in res.items():
            print(f"| {fw} | {r['events']:,} | {r['bare_ms']:.1f} | {r['profiler_ms']:.1f} | {r['cann_ms']:.1f} | "
                  f"{r['cann_no_host_ms']:.1f} | {r['post_ms']:.1f} | {r['profiler_over_bare']:.3f} | "
                  f"{r['cann_over_profiler']:.3f} | {r['no_host_over_profiler']:.3f} |")
    else:
        for fw, r in res.items():
            print(fw, {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}, file=sys.stdout)


if __name__ == "__main__":
    main()
