"""Synthetic profiles of any size for the widget tests and benchmarks (vectorised, deterministic).

Structure, repeated: a host op (depth 0) with three child ops (depth 1), each launching one device
kernel through a runtime call (depth 2, linked by ``corr``) onto one of two CUDA streams; allocations
in the memory table and CPU/GPU utilisation counters. One op name is hostile HTML.
"""

from __future__ import annotations

import numpy as np

from cann_nb.model import Profile

HOSTILE = "<img src=x onerror=alert(1)>"
OPS = ["aten::linear", "aten::conv2d", "aten::layer_norm", "aten::softmax", "aten::matmul", "aten::gelu",
       "aten::add", "aten::mul", HOSTILE, "aten::dropout", "aten::embedding", "aten::cat"]
KERNELS = ["sgemm_128x64_nn", "volta_scudnn_128x64_relu", "vectorized_elementwise_kernel", "softmax_warp_forward",
           "layer_norm_kernel", "reduce_kernel<512>", "cat_batched_copy", "gelu_kernel"]
PER_GROUP = 10
GROUP_NS = 10_000


def synthetic_profile(n_events: int = 10_000, name: str = "synthetic", seed: int = 0, scale: float = 1.0) -> Profile:
    rng = np.random.default_rng(seed)
    g = max(1, n_events // PER_GROUP)
    base = np.arange(g, dtype=np.int64) * GROUP_NS
    thread = np.where(np.arange(g) % 4 == 3, "host/thread 2", "host/thread 1")
    gid = np.arange(g, dtype=np.int64) * PER_GROUP
    # ids within a group: 0 parent, 1..3 children, 4..6 launches, 7..9 kernels
    ids = gid[:, None] + np.arange(PER_GROUP)[None, :]
    start = np.empty((g, PER_GROUP), np.int64)
    dur = np.empty((g, PER_GROUP), np.int64)
    start[:, 0], dur[:, 0] = base, 9_500
    for j in range(3):
        start[:, 1 + j] = base + 100 + 3_000 * j
        dur[:, 1 + j] = (rng.integers(1_500, 2_800, g) * scale).astype(np.int64)
        start[:, 4 + j] = start[:, 1 + j] + 200
        dur[:, 4 + j] = 500
        start[:, 7 + j] = base + 1_500 + 3_000 * j
        dur[:, 7 + j] = (rng.integers(600, 2_900, g) * scale).astype(np.int64)
    parent = np.full((g, PER_GROUP), -1, np.int64)
    parent[:, 1:4] = ids[:, [0]]
    parent[:, 4:7] = ids[:, 1:4]
    depth = np.zeros((g, PER_GROUP), np.int32)
    depth[:, 1:4], depth[:, 4:7] = 1, 2
    corr = np.full((g, PER_GROUP), -1, np.int64)
    corr[:, 4:7] = ids[:, 4:7]
    corr[:, 7:10] = ids[:, 4:7]
    op_idx = rng.integers(0, len(OPS), (g, 4))
    names = np.empty((g, PER_GROUP), dtype=object)
    ops = np.asarray(OPS, dtype=object)
    names[:, 0] = np.asarray(["nn.Module: Block"] * g, dtype=object)
    names[:, 1:4] = ops[op_idx[:, 1:4]]
    names[:, 4:7] = "cudaLaunchKernel"
    names[:, 7:10] = np.asarray(KERNELS, dtype=object)[rng.integers(0, len(KERNELS), (g, 3))]
    cat = np.empty((g, PER_GROUP), dtype=object)
    cat[:, 0:4], cat[:, 4:7], cat[:, 7:10] = "op", "runtime", "kernel"
    track = np.empty((g, PER_GROUP), dtype=object)
    track[:, 0:7] = thread[:, None]
    stream = np.where(np.arange(g) % 2 == 0, "cuda:0/stream 7", "cuda:0/stream 8")
    # kernels of odd groups are shifted so the two streams do not just mirror each other
    start[:, 7:10] += np.where(np.arange(g) % 2 == 1, 700, 0)[:, None]
    track[:, 7:10] = stream[:, None]
    device = np.where(cat == "kernel", "cuda:0", "cpu")
    shapes = np.empty((g, PER_GROUP), dtype=object)
    shapes[:] = None
    shapes[:, 1:4] = np.asarray(["[[32, 512], [512, 512]]", "[[32, 3, 224, 224]]", "[[8, 128]]"], dtype=object)[
        rng.integers(0, 3, (g, 3))]
    module = np.empty((g, PER_GROUP), dtype=object)
    module[:] = None
    module[:, 0:4] = np.asarray(["model.encoder.0", "model.encoder.1", "model.head"], dtype=object)[
        (np.arange(g) % 3)][:, None]
    events = {
        "id": ids.ravel(), "name": names.ravel(), "cat": cat.ravel(), "track": track.ravel(),
        "device": device.ravel(), "start_ns": start.ravel(), "dur_ns": dur.ravel(), "parent": parent.ravel(),
        "depth": depth.ravel(), "corr": corr.ravel(), "shapes": shapes.ravel(), "module": module.ravel(),
    }
    t_end = int(base[-1] + GROUP_NS)
    m_ts = base + 50
    m_delta = np.where(np.arange(g) % 2 == 0, 1, -1) * rng.integers(1, 4, g) * 2**20
    m_delta[0] = abs(m_delta[0])
    alloc = np.maximum(np.cumsum(m_delta), 0) + 512 * 2**20
    memory = {"ts_ns": m_ts, "device": np.full(g, "cuda:0", dtype=object), "delta_bytes": m_delta.astype(float),
              "allocated_bytes": alloc.astype(float), "reserved_bytes": (alloc + 256 * 2**20).astype(float),
              "event_id": ids[:, 0]}
    c_ts = np.arange(0, t_end, max(t_end // 500, 1), dtype=np.int64)
    k = len(c_ts)
    counters = {"ts_ns": np.concatenate([c_ts, c_ts, c_ts]),
                "source": np.array(["host"] * (2 * k) + ["cuda:0"] * k, dtype=object),
                "metric": np.array(["cpu_util:process"] * k + ["rss"] * k + ["gpu_util"] * k, dtype=object),
                "value": np.concatenate([rng.uniform(50, 100, k), np.linspace(4e8, 6e8, k), rng.uniform(20, 95, k)])}
    return Profile(events, memory, counters, meta={"name": name, "t0_ns": 0, "wall_ns": t_end,
                                                   "collectors": {"synthetic": {"status": "ok"}}})


def synthetic_findings(profile):
    """Two findings in the Finding contract, one with evidence events (the hostile op's occurrences)."""
    from cann_nb.analyze.finding import Finding

    ev = profile.events
    hostile_ids = ev.loc[ev["name"] == HOSTILE, "id"].to_numpy()[:50]
    launch_ids = ev.loc[ev["name"] == "cudaLaunchKernel", "id"].to_numpy()[:200]
    return [
        Finding(rule="launch_overhead", category="launch_overhead", severity="medium",
                title=f"{len(launch_ids)} small kernel launches", evidence={"method": "union of flagged time",
                                                                            "event_ids": launch_ids.tolist()},
                ops=("cudaLaunchKernel",), suggestion="Capture the step with CUDA graphs.",
                est_gain_ns=1.5e5, est_gain_pct=1.2, confidence=0.6),
        Finding(rule="hotspot", category="hotspot", severity="high", title=f"{HOSTILE} dominates host time",
                evidence={"method": "headroom", "event_ids": hostile_ids.tolist(), "note": "</script><b>x</b>"},
                ops=(HOSTILE,), suggestion="Fuse <b>it</b> with javascript:alert(2)", est_gain_ns=9.9e5,
                est_gain_pct=8.0, confidence=0.8),
        Finding(rule="idle", category="idle", severity="info", title="Gain unknown", evidence={"method": "n/a"}),
    ]
