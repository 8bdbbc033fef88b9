"""Small builders of synthetic Profiles for the analysis tests (times in ns)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cann_nb.model import Profile
from cann_nb.ingest.nesting import nest

HOST = "host/thread 1"
STREAM = "cuda:0/stream 7"


class Trace:
    """Append events, then ``profile()`` nests them and builds the Profile."""

    def __init__(self):
        self.rows = []

    def add(self, name, cat, start, dur, track=HOST, device="cpu", corr=-1, **extra):
        self.rows.append(dict(name=name, cat=cat, track=track, device=device, start_ns=int(start), dur_ns=int(dur),
                              corr=int(corr), **extra))
        return len(self.rows) - 1

    def op(self, name, start, dur, **kw):
        return self.add(name, "op", start, dur, **kw)

    def kernel(self, name, start, dur, corr=-1, stream=STREAM, **kw):
        return self.add(name, "kernel", start, dur, track=stream, device=stream.split("/")[0], corr=corr, **kw)

    def launch(self, start, dur, corr, name="cudaLaunchKernel", track=HOST):
        return self.add(name, "runtime", start, dur, track=track, corr=corr)

    def profile(self, wall_ns=None, lo=0, **meta) -> Profile:
        ev = pd.DataFrame(self.rows)
        ev["id"] = np.arange(len(ev), dtype=np.int64)
        parent, depth = nest(ev["track"].astype(str).to_numpy(), ev["start_ns"], ev["dur_ns"], ev["id"])
        ev["parent"], ev["depth"] = parent, depth
        if wall_ns is None:
            wall_ns = int((ev["start_ns"] + ev["dur_ns"]).max() - lo)
        return Profile(ev, meta={"wall_ns": int(wall_ns), "window_ns": [lo, lo + int(wall_ns)], **meta})


def gpu_loop(n_iter=10, host_gap=50_000, launch_dur=5_000, kernel_dur=20_000, kernels_per_iter=3,
             sync_every=0, sync_name="cudaStreamSynchronize", op_name="aten::add"):
    """A host loop launching kernels; optionally a blocking sync every ``sync_every`` iterations.
    The host runs ahead unless synced; a sync lasts until the device drains. Returns (Trace, truth)."""
    tr = Trace()
    t = 0
    dev_free = 0
    corr = 0
    busy = 0
    for it in range(n_iter):
        t += host_gap
        for _ in range(kernels_per_iter):
            op_start = t
            t += 1_000
            corr += 1
            tr.launch(t, launch_dur, corr)
            ks = max(dev_free, t + 2_000)
            tr.kernel("k_" + op_name, ks, kernel_dur, corr=corr)
            busy += kernel_dur
            dev_free = ks + kernel_dur
            t += launch_dur + 1_000
            tr.op(op_name, op_start, t - op_start)
        if sync_every and (it + 1) % sync_every == 0:
            end = max(t + 2_000, dev_free + 1_000)
            tr.add(sync_name, "runtime", t, end - t)
            t = end
    end = max(t, dev_free)
    return tr, {"wall": end, "device_busy": busy}
