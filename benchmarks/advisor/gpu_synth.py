"""Synthetic GPU-shaped traces whose truth is known by construction.

A small discrete-event simulator of one host thread driving a CUDA device: framework ops with
runtime launch calls (``cudaLaunchKernel``, ``cudaMemcpyAsync``), kernels and copies on in-order
streams, blocking syncs. It writes the same tables a Kineto import gives (cats op/runtime/kernel/
memcpy, tracks ``host/thread 1`` and ``cuda:0/stream N``, ``corr`` links). Each scenario builds a
slow run with a planted problem and the fixed run; the measured gain is the difference of the two
simulated wall times, and the breakdown truth comes from the simulator's own bookkeeping (a
per-microsecond bitmap), not from cann_nb's interval code.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cann_nb.model import Profile
from cann_nb.ingest.nesting import nest

US = 1_000
HOST = "host/thread 1"


class Sim:
    def __init__(self, seed: int = 0, launch_ns: int = 6 * US, latency_ns: int = 3 * US):
        self.rng = np.random.default_rng(seed)
        self.t = 0
        self.free: dict[int, int] = {}
        self.rows: list[dict] = []
        self.corr = 0
        self.launch_ns = launch_ns
        self.latency_ns = latency_ns

    def jitter(self, ns: float, rel: float = 0.05) -> int:
        return max(1, int(ns * (1 + self.rng.uniform(-rel, rel))))

    def _add(self, name, cat, start, dur, track=HOST, device="cpu", corr=-1, **kw):
        self.rows.append(dict(name=name, cat=cat, track=track, device=device, start_ns=int(start), dur_ns=int(dur),
                              corr=int(corr), **kw))

    def python(self, ns):
        """Untracked host time (Python the profiler does not see)."""
        self.t += self.jitter(ns)

    def _task(self, name, cat, dur, stream, release, corr, **kw):
        start = max(self.free.get(stream, 0), release)
        self._add(name, cat, start, dur, track=f"cuda:0/stream {stream}", device="cuda:0", corr=corr, **kw)
        self.free[stream] = start + dur
        return start + dur

    def op(self, name, kernels=(), overhead_ns=10 * US, shapes=None, dtypes=None, stream=7):
        """A framework op that launches kernels [(kernel_name, dur_ns)] on a stream."""
        start = self.t
        self.t += self.jitter(overhead_ns / 2)
        for kname, kdur in kernels:
            self.corr += 1
            ls = self.t
            self.t += self.jitter(self.launch_ns)
            self._add("cudaLaunchKernel", "runtime", ls, self.t - ls, corr=self.corr)
            self._task(kname, "kernel", self.jitter(kdur), stream, ls + self.latency_ns, self.corr)
        self.t += self.jitter(overhead_ns / 2)
        self._add(name, "op", start, self.t - start, shapes=shapes, dtypes=dtypes)

    def graph(self, name, kernels, stream=7):
        """A captured graph: one launch call, its kernels back to back on the stream."""
        start = self.t
        self.t += self.jitter(3 * US)
        self.corr += 1
        ls = self.t
        self.t += self.jitter(10 * US)
        self._add("cudaGraphLaunch", "runtime", ls, self.t - ls, corr=self.corr)
        rel = ls + self.latency_ns
        for kname, kdur in kernels:
            rel = self._task(kname, "kernel", self.jitter(kdur), stream, rel, self.corr) + 1 * US
        self.t += self.jitter(3 * US)
        self._add(name, "op", start, self.t - start)

    def copy(self, kind, nbytes, pageable=False, stream=7, op="aten::copy_", bw_gbps=12.0, blocking=None):
        """A host<->device copy: cudaMemcpyAsync + a Memcpy task; pageable copies block the host
        until the copy is done (staging), as CUDA does."""
        start = self.t
        self.t += self.jitter(3 * US)
        self.corr += 1
        ls = self.t
        src = {"H2D": ("HtoD", "Pageable" if pageable else "Pinned", "Device"),
               "D2H": ("DtoH", "Device", "Pageable" if pageable else "Pinned")}[kind]
        name = f"Memcpy {src[0]} ({src[1]} -> {src[2]})"
        dur = self.jitter(1.5 * US + nbytes / bw_gbps / (0.5 if pageable else 1.0))
        end = self._task(name, "memcpy", dur, stream, ls + self.latency_ns, self.corr, bytes=float(nbytes))
        call_end = ls + self.jitter(self.launch_ns)
        if pageable if blocking is None else blocking:
            call_end = max(call_end, end + 2 * US)
        self._add("cudaMemcpyAsync", "runtime", ls, call_end - ls, corr=self.corr)
        self.t = call_end + self.jitter(2 * US)
        self._add(op, "op", start, self.t - start)

    def sync(self, op="aten::item", inner="aten::_local_scalar_dense"):
        """A .item(): a small D2H copy then cudaStreamSynchronize until every stream drained."""
        start = self.t
        self.t += self.jitter(2 * US)
        s_in = self.t
        self.corr += 1
        ls = self.t
        self._task("Memcpy DtoH (Device -> Pinned)", "memcpy", self.jitter(2 * US), 7, ls + self.latency_ns, self.corr,
                   bytes=4.0)
        self.t += self.jitter(4 * US)
        self._add("cudaMemcpyAsync", "runtime", ls, self.t - ls, corr=self.corr)
        ss = self.t
        done = max(self.free.values()) if self.free else ss
        self.t = max(ss + self.jitter(2 * US), done + self.jitter(3 * US))
        self._add("cudaStreamSynchronize", "runtime", ss, self.t - ss)
        self.t += self.jitter(1 * US)
        self._add(inner, "op", s_in, self.t - s_in)
        self.t += self.jitter(1 * US)
        self._add(op, "op", start, self.t - start)

    def finish(self, name: str) -> tuple[Profile, dict]:
        end = max([self.t] + list(self.free.values()))
        ev = pd.DataFrame(self.rows)
        ev["id"] = np.arange(len(ev), dtype=np.int64)
        for c in ("shapes", "dtypes"):
            if c not in ev:
                ev[c] = None
        parent, depth = nest(ev["track"].astype(str).to_numpy(), ev["start_ns"], ev["dur_ns"], ev["id"])
        ev["parent"], ev["depth"] = parent, depth
        prof = Profile(ev, meta={"name": name, "wall_ns": int(end), "window_ns": [0, int(end)],
                                 "devices": [{"device": "cpu"}, {"device": "cuda:0"}]})
        return prof, truth_breakdown(ev, int(end))


def truth_breakdown(ev: pd.DataFrame, wall: int) -> dict:
    """Device compute / memcpy / idle by a per-microsecond bitmap (independent of cann_nb), with the
    same priority (compute over memcpy)."""
    n = wall // US + 1
    comp = np.zeros(n, dtype=bool)
    mem = np.zeros(n, dtype=bool)
    dev = ev[ev["device"] == "cuda:0"]
    for s, d, c in zip(dev["start_ns"], dev["dur_ns"], dev["cat"]):
        a, b = s // US, (s + d) // US
        (comp if c == "kernel" else mem)[a:b] = True
    compute = int(comp.sum()) * US
    memcpy = int((mem & ~comp).sum()) * US
    return {"wall_ns": wall, "compute_ns": compute, "memcpy_ns": memcpy, "idle_ns": wall - compute - memcpy}


# -- scenarios: (slow, fixed) builders ---------------------------------------------------------------
KERNELS = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "void at::native::layer_norm_kernel<bf16>",
           "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, bf16>>")
OPS = ("aten::addmm", "aten::layer_norm", "aten::_flash_attention_forward")


def _train_step(sim, n_ops=30, kernel_ns=60 * US):
    for i in range(n_ops):
        sim.op(OPS[i % 3], [(KERNELS[i % 3], kernel_ns)],
               shapes="[[256,1024],[1024,1024]]", dtypes='["c10::BFloat16","c10::BFloat16"]')


def sync_item(seed=0, steps=40):
    """Planted: loss.item() every step blocks the host until the device drains, so the next step's
    Python (1.2 ms of input preparation) cannot overlap the device; fixed: read the loss once at the
    end."""
    def build(fixed):
        sim = Sim(seed)
        for s in range(steps):
            sim.python(1200 * US)
            _train_step(sim)
            if not fixed:
                sim.sync()
        if fixed:
            sim.sync()
        return sim.finish("sync_item" + ("_fixed" if fixed else ""))
    return build(False), build(True), ("sync",)


def pageable_small_copies(seed=1, steps=30):
    """Planted: 48 small H2D copies from pageable memory per step, each blocking the host; fixed: one
    pinned, batched, non-blocking copy per step."""
    def build(fixed):
        sim = Sim(seed)
        for s in range(steps):
            sim.python(30 * US)
            if fixed:
                sim.copy("H2D", 48 * 16 * 1024, pageable=False, blocking=False)
            else:
                for _ in range(48):
                    sim.copy("H2D", 16 * 1024, pageable=True)
            _train_step(sim, n_ops=12, kernel_ns=80 * US)
        return sim.finish("pageable_small_copies" + ("_fixed" if fixed else ""))
    return build(False), build(True), ("transfer",)


def idle_gaps(seed=2, steps=25):
    """Planted: 3 ms of Python preprocessing per step on the main thread while the device idles;
    fixed: the preprocessing runs in a DataLoader worker (overlapped)."""
    def build(fixed):
        sim = Sim(seed)
        for s in range(steps):
            if not fixed:
                sim.python(3000 * US)
            else:
                sim.python(20 * US)
            _train_step(sim, n_ops=30, kernel_ns=70 * US)
        return sim.finish("idle_gaps" + ("_fixed" if fixed else ""))
    return build(False), build(True), ("idle", "host_bound", "input_pipeline")


def launch_bound(seed=3, steps=20):
    """Planted: 200 tiny kernels (3 us) per step, each launched by its own op (15 us of host time);
    fixed: the step captured in a CUDA graph (one launch, kernels back to back)."""
    def build(fixed):
        sim = Sim(seed)
        for s in range(steps):
            sim.python(20 * US)
            if fixed:
                sim.graph("graph_replay", [(f"tiny_{i % 7}", 3 * US) for i in range(200)])
            else:
                for i in range(200):
                    sim.op("aten::mul" if i % 2 else "aten::add", [(f"tiny_{i % 7}", 3 * US)], overhead_ns=9 * US)
        return sim.finish("launch_bound" + ("_fixed" if fixed else ""))
    (slow, tslow), (fixed, tfixed), cats = build(False), build(True), ("launch_overhead", "idle")
    return (slow, tslow), (fixed, tfixed), cats


def exposed_h2d(seed=4, steps=20):
    """Planted: an 8 MB pinned H2D copy per step on the compute stream before the step's kernels;
    fixed: the copy is prefetched on a side stream during the previous step (overlapped)."""
    def build(fixed):
        sim = Sim(seed)
        for s in range(steps):
            sim.python(20 * US)
            sim.copy("H2D", 8 * 1024 * 1024, pageable=False, stream=9 if fixed else 7, blocking=False)
            _train_step(sim, n_ops=24, kernel_ns=90 * US)
        return sim.finish("exposed_h2d" + ("_fixed" if fixed else ""))
    return build(False), build(True), ("transfer",)


def healthy(seed=5, steps=20):
    """Control: a device-bound loop with nothing planted (no finding should claim a large gain)."""
    def build(fixed):
        sim = Sim(seed)
        for s in range(steps):
            sim.python(20 * US)
            _train_step(sim, n_ops=30, kernel_ns=400 * US)
        return sim.finish("healthy")
    return build(False), build(True), ()


SCENARIOS = {f.__name__: f for f in (sync_item, pageable_small_copies, idle_gaps, launch_bound, exposed_h2d, healthy)}
