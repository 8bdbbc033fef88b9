"""A synthetic data-parallel job: N ranks, each step loads data, runs K kernels, then an all-reduce that
ends on every rank when the last rank arrives (the others wait in it). One planted straggler; each rank's
clock off by a known error. Built with numpy (no Python object per event), with the exact truth.

Used by tests/analyze/test_cluster.py and benchmarks/cluster.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cann_nb.ingest.nesting import nest
from cann_nb.model import Profile

US = 1_000
D, GAP, H, LAUNCH_LAG, DL = 20 * US, 2 * US, 8 * US, 12 * US, 300 * US   # kernel, gap, host op, lag, data loading
TRANSFER, TAIL, STEP_GAP = 400 * US, 5 * US, 60 * US
BASE_NS = 1_700_000_000_000_000_000
NAMES = ["ProfilerStep#", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "aten::mm", "cudaLaunchKernel",
         "c10d::allreduce_", "cudaStreamSynchronize", "volta_sgemm_128x64_nn",
         "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"]
HOST, STREAM, COMM_STREAM = "host/thread 1", "cuda:0/stream 7", "cuda:0/stream 13"


def _plan(n_ranks, steps, kernels, straggler, kind, slow, seed):
    """Per rank: kernel durations (steps x K_r), data-loading time; every rank's arrival offsets."""
    durs, dls = [], []
    for r in range(n_ranks):
        rng = np.random.default_rng([seed, r])
        k = int(round(kernels * slow)) if (r == straggler and kind == "imbalance") else kernels
        factor = (slow if (r == straggler and kind == "compute") else 1.0) * (1 + rng.normal(0, 0.003))
        durs.append((D * factor * rng.uniform(0.98, 1.02, (steps, k))).astype(np.int64))
        extra = (slow - 1) * kernels * D if (r == straggler and kind == "data_loading") else 0
        dls.append(int(DL + extra))
    arrive = np.stack([dl + LAUNCH_LAG + (d + GAP).sum(axis=1) for d, dl in zip(durs, dls)])   # ranks x steps
    return durs, dls, arrive


def cluster_job(n_ranks=16, steps=20, kernels=32, straggler=5, kind="compute", slow=1.25, seed=0,
                clock_error_ns=200 * US):
    """(rank -> Profile, truth DataFrame with the exact per-rank figures of the busiest device)."""
    durs, dls, arrive = _plan(n_ranks, steps, kernels, straggler, kind, slow, seed)
    starts = np.empty(steps, np.int64)
    t = 1_000 * US
    for i in range(steps):             # steps are few: the loop is over steps, never over events
        starts[i] = t
        t += arrive[:, i].max() + TRANSFER + TAIL + STEP_GAP
    last = starts + arrive.max(axis=0)
    ends = last + TRANSFER + TAIL
    errors = np.random.default_rng([seed, 10_000]).integers(-clock_error_ns, clock_error_ns + 1, n_ranks)
    profiles, truth = {}, []
    for r in range(n_ranks):
        p, row = _rank(r, durs[r], dls[r], starts, starts + arrive[r], last, ends, int(errors[r]))
        profiles[r] = p
        truth.append(row)
    return profiles, pd.DataFrame(truth)


def _rank(rank, d, dl, s, arrive, last, ends, err):
    steps, k = d.shape
    kstart = s[:, None] + dl + LAUNCH_LAG + np.concatenate(
        [np.zeros((steps, 1), np.int64), np.cumsum(d + GAP, axis=1)[:, :-1]], axis=1)
    op_start = s[:, None] + dl + np.arange(k) * H
    ar_op = s + dl + k * H
    corr = np.arange(steps * (k + 1), dtype=np.int64).reshape(steps, k + 1)
    parts = [  # (name code, track, device, cat, start, dur, corr)
        (0, HOST, "cpu", "annotation", s, ends - s, -1),
        (1, HOST, "cpu", "op", s, np.full(steps, dl), -1),
        (2, HOST, "cpu", "op", op_start.ravel(), np.full(steps * k, H * 8 // 10), -1),
        (3, HOST, "cpu", "runtime", (op_start + H // 10).ravel(), np.full(steps * k, H // 2), corr[:, :k].ravel()),
        (4, HOST, "cpu", "op", ar_op, np.full(steps, H * 8 // 10), -1),
        (3, HOST, "cpu", "runtime", ar_op + H // 10, np.full(steps, H // 2), corr[:, k]),
        (5, HOST, "cpu", "runtime", ar_op + H, ends - (ar_op + H), -1),
        (6, STREAM, "cuda:0", "kernel", kstart.ravel(), d.ravel(), corr[:, :k].ravel()),
        (7, COMM_STREAM, "cuda:0", "kernel", arrive, ends - TAIL - arrive, corr[:, k]),
    ]
    lens = [len(np.atleast_1d(p[4])) for p in parts]
    code = np.repeat([p[0] for p in parts], lens)
    start = np.concatenate([np.asarray(p[4], np.int64) for p in parts]) + err   # this rank's clock
    dur = np.concatenate([np.broadcast_to(np.asarray(p[5], np.int64), (n,)) for p, n in zip(parts, lens)])
    ev = pd.DataFrame({
        "id": np.arange(len(code), dtype=np.int64),
        "name": pd.Categorical.from_codes(code, NAMES),
        "cat": np.repeat([p[3] for p in parts], lens),
        "track": np.repeat([p[1] for p in parts], lens),
        "device": np.repeat([p[2] for p in parts], lens),
        "start_ns": start, "dur_ns": dur,
        "corr": np.concatenate([np.broadcast_to(np.asarray(p[6], np.int64), (n,)) for p, n in zip(parts, lens)]),
    })
    # ProfilerStep#N names: one per step
    step_names = np.asarray([f"ProfilerStep#{i}" for i in range(steps)], dtype=object)
    names = ev["name"].astype(object).to_numpy().copy()
    names[:steps] = step_names
    ev["name"] = pd.Categorical(names)
    ev["parent"], ev["depth"] = nest(ev["track"].to_numpy(dtype=object), ev["start_ns"], ev["dur_ns"], ev["id"])
    wall = int(ends[-1] - s[0])
    meta = {"name": f"rank{rank}", "t0_ns": BASE_NS, "wall_ns": wall,
            "window_ns": [int(s[0] + err), int(ends[-1] + err)], "source": {"kind": "import"}}
    compute = int(d.sum())
    comm = int((ends - TAIL - arrive).sum())
    row = {"rank": rank, "wall_ns": wall, "compute_ns": compute, "communication_ns": comm, "memcpy_ns": 0,
           "busy_ns": compute + comm, "idle_ns": wall - compute - comm, "comm_wait_ns": int((last - arrive).sum()),
           "step_p50_ns": float(np.median(ends - s)), "clock_error_ns": err}
    return Profile(ev, meta=meta), row


def store_job(root, name="dp16", **kwargs):
    """Write the job as a real stored group (``root/name/group.json``, ``rank=K/``); return the truth."""
    from cann_nb.store import Session

    profiles, truth = cluster_job(**kwargs)
    Session(root).add_group(name, profiles, {"world_size": len(profiles)})
    return truth
