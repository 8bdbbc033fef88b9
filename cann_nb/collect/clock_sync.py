"""Clock alignment for ``Profiler.enable_clock_sync()``: measured offsets between the clocks a profile uses.

A collected profile puts everything on one epoch clock (``meta.t0_ns`` from ``time.time_ns()``): the
host sampler and Python tracer read ``perf_counter_ns`` and shift it by an offset taken once at start;
torch.profiler reports host ops on its own steady clock and device tasks (CUDA through CUPTI) converted
by Kineto. Sync measures, and records under ``meta["clock_sync"]``:

``host``  at start and at stop: ``time_ns - perf_counter_ns`` and ``time_ns - monotonic_ns`` from the
          tightest of 64 bracketed reads (``uncertainty_ns`` = half that bracket), and their change over
          the run as ``drift_ppm``: how far NTP slewed or stepped the wall clock while the code ran, i.e.
          how much an epoch timestamp computed from perf_counter at start has drifted by the end.
``devices`` per CUDA device (torch.cuda) or Ascend NPU (torch_npu, same Event API): two timing
          events recorded on an idle stream ``gap_ms`` apart; the device-measured interval against the
          host's gives the device clock's rate error (``drift_ppm``), and the fastest record+synchronize
          round trip bounds how far a device timestamp can be from the host instant of its launch
          (``round_trip_ns``). Several devices are each measured against the host clock, which aligns
          them to each other through it.
``trace`` after the run, for each device in the profile with launch->task links (``corr``): the
          smallest gap between a host launch and the start of its device task. It must be >= 0; a
          negative gap is a measured host/device offset and the device's events are shifted by it
          (``applied_shift_ns``) so that no task starts before the call that launched it.

On a CPU-only machine there is no device clock: only ``host`` is measured, ``devices`` is empty and
``note`` says so.
"""

from __future__ import annotations

import time

import numpy as np

_READS = 64


def _bracket(reference, other, reads: int = _READS) -> tuple[int, int]:
    """(other - reference at the same instant, half-width of the tightest bracket) in ns."""
    best = None
    for _ in range(reads):
        a = reference()
        o = other()
        b = reference()
        if best is None or b - a < best[0]:
            best = (b - a, o - (a + b) // 2)
    return best[1], (best[0] + 1) // 2


def host_offsets() -> dict:
    wall_perf, unc_p = _bracket(time.perf_counter_ns, time.time_ns)
    wall_mono, unc_m = _bracket(time.monotonic_ns, time.time_ns)
    return {"at_ns": time.time_ns(), "wall_minus_perf_counter_ns": int(wall_perf), "uncertainty_ns": int(unc_p),
            "wall_minus_monotonic_ns": int(wall_mono), "monotonic_uncertainty_ns": int(unc_m)}


def _device_modules():
    """[(prefix, torch device module)] for CUDA and NPU devices that exist, without importing torch."""
    import sys

    torch = sys.modules.get("torch")
    if torch is None:
        return []
    out = []
    for prefix in ("cuda", "npu"):
        mod = getattr(torch, prefix, None)
        try:
            if mod is not None and mod.is_available():
                out.append((prefix, mod))
        except Exception:
            continue
    return out


def device_offsets(gap_ms: float = 20.0) -> dict:
    """Per device: its clock's rate against the host's and the launch round trip (see module doc)."""
    out = {}
    for prefix, mod in _device_modules():
        for i in range(mod.device_count()):
            dev = f"{prefix}:{i}"
            try:
                out[dev] = _measure_device(mod, i, gap_ms)
            except Exception as exc:  # a busy or broken device: say so, never fail the profile
                out[dev] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def _measure_device(mod, index: int, gap_ms: float) -> dict:
    with mod.device(index):
        stream = mod.current_stream()
        stream.synchronize()
        rtts = []
        for _ in range(5):
            e = mod.Event(enable_timing=True)
            t = time.perf_counter_ns()
            e.record(stream)
            e.synchronize()
            rtts.append(time.perf_counter_ns() - t)
        e0, e1 = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
        h0 = time.perf_counter_ns()
        e0.record(stream)
        time.sleep(gap_ms / 1000.0)
        h1 = time.perf_counter_ns()
        e1.record(stream)
        e1.synchronize()
        dev_ns = e0.elapsed_time(e1) * 1e6
        host_ns = h1 - h0
        return {"method": f"torch.{mod.__name__.split('.')[-1]}.Event pair {gap_ms:g} ms apart on an idle stream",
                "host_interval_ns": int(host_ns), "device_interval_ns": int(round(dev_ns)),
                "drift_ppm": round((dev_ns - host_ns) / host_ns * 1e6, 3),
                "round_trip_ns": int(min(rtts))}


def trace_offsets(events) -> dict:
    """Per device: smallest (device task start - host launch start) over launch->task links, in ns."""
    if not len(events) or "corr" not in events:
        return {}
    corr = events["corr"].to_numpy()
    linked = corr >= 0
    if not linked.any():
        return {}
    ev = events[linked]
    dev = ev["device"].astype(object).to_numpy()
    host = np.array([str(d) == "cpu" or str(d).startswith("host") for d in dev])
    h = ev[host].groupby("corr", observed=True)["start_ns"].min()
    out = {}
    d_ev = ev[~host]
    for device, g in d_ev.groupby(d_ev["device"].astype(str)):
        starts = g.groupby("corr", observed=True)["start_ns"].min()
        common = starts.index.intersection(h.index)
        if not len(common):
            continue
        gaps = starts.loc[common].to_numpy() - h.loc[common].to_numpy()
        out[device] = {"pairs": int(len(common)), "min_launch_to_start_ns": int(gaps.min()),
                       "median_launch_to_start_ns": int(np.median(gaps))}
    return out


def apply(profile, start: dict, stop: dict, devices: dict) -> dict:
    """Record the measurements in ``profile.meta["clock_sync"]``; shift device events that start
    before their launch. Returns the meta entry."""
    elapsed = stop["at_ns"] - start["at_ns"]
    drift = stop["wall_minus_perf_counter_ns"] - start["wall_minus_perf_counter_ns"]
    trace = trace_offsets(profile.events)
    for device, t in trace.items():
        shift = -t["min_launch_to_start_ns"] if t["min_launch_to_start_ns"] < 0 else 0
        t["applied_shift_ns"] = int(shift)
        if shift:
            rows = (profile.events["device"].astype(str) == device).to_numpy()
            profile.events.loc[rows, "start_ns"] = profile.events.loc[rows, "start_ns"] + shift
    entry = {
        "host": {"start": start, "stop": stop, "wall_vs_perf_counter_change_ns": int(drift),
                 "drift_ppm": round(drift / elapsed * 1e6, 3) if elapsed > 0 else None},
        "devices": devices,
        "trace": trace,
    }
    if not devices:
        entry["note"] = ("no CUDA or NPU device: only the host clocks (time_ns, perf_counter_ns, monotonic_ns) "
                         "were measured")
    profile.meta["clock_sync"] = entry
    return entry
