"""Overhead of %%cann_profile against bare code and bare torch.profiler, side by side in one process.

Two CPU workloads (no downloads): a small CNN training step and a small Transformer encoder
training step. Each is run as an IPython cell in three ways, interleaved round by round so that
machine noise hits all three alike:

  bare      the cell as is
  profiler  the cell inside ``torch.profiler.profile(activities=[CPU], profile_memory=True)``
            (the options %%cann_profile uses by default), trace export not included
  cann      ``%%cann_profile --no-display`` (torch + host collectors), split into
            in-cell time (collectors started -> stopped, what the user waits for while the code runs),
            and post-processing (trace export, conversion and the store write, after the cell)
  cann_view the same with the notebook view shown (the default): its post-processing includes
            building the view, which the store write overlaps (it runs on the store's writer thread)

Reported: medians over rounds, the ratios cann/profiler and profiler/bare, and post-processing as a
share of the profiled cell's time. Goals: cann in-cell within 5 % of profiler; post < 10 %.

    python benchmarks/overhead.py [--rounds 15] [--markdown]
    python benchmarks/overhead.py --shapes [--rounds 15]

``--shapes``: what recording input shapes and dtypes (the default) costs, side by side with
``--no-shapes`` (and ``PROFILER_MODE=detailed``'s stacks + FLOPs), in-cell time, on the two workloads
and on a worst case of many tiny ops (a small MLP called sample by sample).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("KINETO_LOG_LEVEL", "99")

import torch  # noqa: E402
from _shell import run_timed, timed_shell  # noqa: E402  (benchmarks/_shell.py)

SETUP = {
    "cnn": """
import torch
from torch import nn
torch.manual_seed(0)
torch.set_num_threads(2)
model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(64, 10))
x = torch.randn(32, 3, 64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def work():
    for _ in range(3):
        loss = model(x).logsumexp(1).mean()
        opt.zero_grad(); loss.backward(); opt.step()
""",
    "transformer": """
import torch
from torch import nn
torch.manual_seed(0)
torch.set_num_threads(2)
layer = nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
model = nn.TransformerEncoder(layer, num_layers=2)
x = torch.randn(16, 64, 128)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def work():
    for _ in range(3):
        loss = model(x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
""",
}

# the worst case for per-op recording costs: ~1,500 tiny ops per call
TINY_OPS = """
import torch
from torch import nn
torch.manual_seed(0)
torch.set_num_threads(2)
model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8)).eval()
x = torch.randn(500, 64)
def work():
    with torch.no_grad():
        for i in range(500):
            model(x[i:i + 1])
"""

SHAPE_CELLS = {
    "bare": "work()",
    "no_shapes": "%%cann_profile -n bench --no-display --collectors torch,host --no-shapes\nwork()",
    "shapes": "%%cann_profile -n bench --no-display --collectors torch,host\nwork()",   # the default
    "detailed": "%%cann_profile -n bench --no-display --collectors torch,host --stack --flops\nwork()",
}

CELLS = {
    "bare": "work()",
    "profiler": ("with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], "
                 "profile_memory=True) as _prof:\n    work()"),
    "cann": "%%cann_profile -n bench --no-display --collectors torch,host\nwork()",
    "cann_view": "%%cann_profile -n bench --collectors torch,host\nwork()",   # the default: shown
}


def measure(rounds: int) -> dict:
    ip, runtime, post = timed_shell()
    results = {}
    for workload, setup in SETUP.items():
        ip.run_cell(setup)
        for cell in CELLS.values():  # warm everything once, incl. torch.profiler's first-use cost
            ip.run_cell(cell)
        times = {k: [] for k in CELLS}
        posts = {"cann": [], "cann_view": []}
        for _ in range(rounds):
            for mode, cell in CELLS.items():
                total, spent = run_timed(ip, post, cell, f"{workload}/{mode}")
                if mode in posts:
                    posts[mode].append(spent)
                times[mode].append(total)
        med = {k: statistics.median(v) for k, v in times.items()}
        # what the notebook display adds after post-processing: the tabbed view with its fallbacks,
        # charts made at once (before) or when their tab opens (the default)
        from cann_nb.widgets.display import display_bundle

        shown = {"eager": [], "lazy": []}
        for _ in range(rounds):
            for how, charts in (("eager", True), ("lazy", "lazy")):
                t = time.perf_counter()
                display_bundle(runtime.last, charts=charts)
                shown[how].append(time.perf_counter() - t)
        results[workload] = {
            "bare_ms": med["bare"] * 1e3,
            "profiler_ms": med["profiler"] * 1e3,
            "cann_ms": med["cann"] * 1e3,
            "post_ms": statistics.median(posts["cann"]) * 1e3,
            "post_view_ms": statistics.median(posts["cann_view"]) * 1e3,
            "display_eager_ms": statistics.median(shown["eager"]) * 1e3,
            "display_lazy_ms": statistics.median(shown["lazy"]) * 1e3,
            "profiler_over_bare": med["profiler"] / med["bare"],
            "cann_over_profiler": med["cann"] / med["profiler"],
            "post_share": statistics.median(posts["cann"]) / med["cann"],
            "events": len(runtime.last.events),
        }
    return results


def measure_shapes(rounds: int) -> dict:
    """In-cell time of the same cell without shapes, with them (default) and detailed, interleaved."""
    ip, runtime, post = timed_shell()
    results = {}
    for workload, setup in {**SETUP, "tiny_ops": TINY_OPS}.items():
        ip.run_cell(setup)
        for cell in SHAPE_CELLS.values():
            ip.run_cell(cell)
        times = {k: [] for k in SHAPE_CELLS}
        events = {}
        for _ in range(rounds):
            for mode, cell in SHAPE_CELLS.items():
                total, spent = run_timed(ip, post, cell, f"{workload}/{mode}")
                if spent is not None:
                    events[mode] = len(runtime.last.events)
                times[mode].append(total)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        results[workload] = {**{f"{k}_ms": v for k, v in med.items()}, "events": events.get("shapes", 0),
                             "shapes_over_no_shapes": med["shapes"] / med["no_shapes"],
                             "detailed_over_no_shapes": med["detailed"] / med["no_shapes"]}
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--shapes", action="store_true", help="the cost of recording shapes (the default)")
    args = ap.parse_args()
    if args.shapes:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["CANN_NB_DIR"] = tmp
            res = measure_shapes(args.rounds)
        print(f"torch {torch.__version__}, {os.cpu_count()} cores, {args.rounds} rounds, medians, in-cell ms")
        print("| workload | events | bare | --no-shapes | shapes (default) | --stack --flops | "
              "shapes / no-shapes | detailed / no-shapes |")
        print("|" + "---|" * 8)
        for name, r in res.items():
            print(f"| {name} | {r['events']:,} | {r['bare_ms']:.1f} | {r['no_shapes_ms']:.1f} | {r['shapes_ms']:.1f} | "
                  f"{r['detailed_ms']:.1f} | {r['shapes_over_no_shapes']:.3f} | {r['detailed_over_no_shapes']:.3f} |")
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CANN_NB_DIR"] = tmp
        res = measure(args.rounds)
    header = ("| workload | events | bare ms | torch.profiler ms | %%cann_profile ms (in cell) | post-processing ms "
              "| post + view ms | profiler/bare | cann/profiler | post/cell | view build ms (charts lazy / at once) |")
    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"{args.rounds} rounds, medians")
    print(header)
    print("|" + "---|" * 11)
    for name, r in res.items():
        print(f"| {name} | {r['events']:,} | {r['bare_ms']:.1f} | {r['profiler_ms']:.1f} | {r['cann_ms']:.1f} | "
              f"{r['post_ms']:.1f} | {r['post_view_ms']:.1f} | {r['profiler_over_bare']:.3f} | {r['cann_over_profiler']:.3f} | "
              f"{100 * r['post_share']:.1f} % | {r['display_lazy_ms']:.0f} / {r['display_eager_ms']:.0f} |")


if __name__ == "__main__":
    main()
