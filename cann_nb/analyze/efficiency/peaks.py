"""Peak FLOP/s per dtype and memory bandwidth of the devices a profile ran on, each with its source.

Accelerators come from ``ACCELERATORS``: vendor datasheet figures, **dense** (NVIDIA lists tensor-core
figures "with sparsity"; those are halved here, as the datasheets' footnotes say), per dtype class
(fp64, fp32, tf32, bf16, fp16, fp8, int8). A device is identified by the name its trace or the collector
recorded (``meta.devices[].name``, Ascend ``meta.device``); a name matching no row, or a dtype a row does
not list, has NaN peaks and says why. The host CPU has no datasheet figure worth trusting (turbo,
AVX clocks, cores shared): its peaks are measured on the machine (cpu_peaks.py).

Overrides: a JSON file named by ``$CANN_NB_PEAKS`` (``{"<regex on the device name>": {"model": ...,
"flops": {"bf16": 3.0e14, ...}, "bytes_per_s": ..., "source": "..."}}``) is consulted before the table,
for devices it lacks (Ascend 910B/910C) or figures a site has measured.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field

T = 1e12   # TFLOP/s
G = 1e9    # GB/s

_A100 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
_H100 = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
_H200 = "https://www.nvidia.com/en-us/data-center/h200/"
_B200 = "https://www.nvidia.com/en-us/data-center/hgx/"
_V100 = "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
_MI300X = ("https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
           "amd-instinct-mi300x-data-sheet.pdf")
_ASCEND910 = "https://www.huawei.com/en/news/2019/8/huawei-ascend-910-most-powerful-ai-processor"


@dataclass(frozen=True)
class Accelerator:
    match: str                 # regex on the recorded device name (case-insensitive)
    model: str
    flops: dict                # dtype class -> dense FLOP/s (NaN: not published)
    bytes_per_s: float
    source: str                # URL and which figures


# Order matters: the first matching row wins (specific variants before the family).
ACCELERATORS: tuple[Accelerator, ...] = (
    Accelerator(r"A100.*(PCIE|PCIe).*80|A100 80GB PCIe", "NVIDIA A100 80GB PCIe",
                dict(fp64=19.5 * T, fp32=19.5 * T, tf32=156 * T, bf16=312 * T, fp16=312 * T, int8=624 * T),
                1935 * G, f"{_A100}: table 'A100 80GB PCIe': FP64 Tensor Core 19.5, FP32 19.5, TF32 156*, BF16/FP16 "
                          "312*, INT8 624* TOPS (* = with sparsity is twice these: dense figures used), GPU memory "
                          "bandwidth 1,935 GB/s"),
    Accelerator(r"A100.*40GB|A100-PCIE-40GB|A100-SXM4-40GB", "NVIDIA A100 40GB",
                dict(fp64=19.5 * T, fp32=19.5 * T, tf32=156 * T, bf16=312 * T, fp16=312 * T, int8=624 * T),
                1555 * G, f"{_A100}: table 'A100 40GB': FP64 Tensor Core 19.5, FP32 19.5, TF32 156, BF16/FP16 312, "
                          "INT8 624 TOPS (dense; sparse figures are twice), GPU memory bandwidth 1,555 GB/s"),
    Accelerator(r"A100", "NVIDIA A100 80GB SXM",
                dict(fp64=19.5 * T, fp32=19.5 * T, tf32=156 * T, bf16=312 * T, fp16=312 * T, int8=624 * T),
                2039 * G, f"{_A100}: table 'A100 80GB SXM': FP64 Tensor Core 19.5, FP32 19.5, TF32 156, BF16/FP16 "
                          "312, INT8 624 TOPS (dense; sparse figures are twice), GPU memory bandwidth 2,039 GB/s"),
    Accelerator(r"H100.*PCIe", "NVIDIA H100 PCIe",
                dict(fp64=51 * T, fp32=51 * T, tf32=378 * T, bf16=756 * T, fp16=756 * T, fp8=1513 * T,
                     int8=1513 * T),
                2000 * G, f"{_H100}: column 'H100 PCIe': FP64 Tensor Core 51, FP32 51, TF32 756*, BF16/FP16 1,513*, "
                          "FP8/INT8 3,026* (* with sparsity: halved), GPU memory bandwidth 2 TB/s"),
    Accelerator(r"H100.*NVL", "NVIDIA H100 NVL",
                dict(fp64=60 * T, fp32=60 * T, tf32=417.5 * T, bf16=835.5 * T, fp16=835.5 * T, fp8=1670.5 * T,
                     int8=1670.5 * T),
                3900 * G, f"{_H100}: column 'H100 NVL': FP64 Tensor Core 60, FP32 60, TF32 835*, BF16/FP16 1,671*, "
                          "FP8/INT8 3,341* (* with sparsity: halved), GPU memory bandwidth 3.9 TB/s"),
    Accelerator(r"H100", "NVIDIA H100 SXM",
                dict(fp64=67 * T, fp32=67 * T, tf32=494.5 * T, bf16=989.5 * T, fp16=989.5 * T, fp8=1979 * T,
                     int8=1979 * T),
                3350 * G, f"{_H100}: column 'H100 SXM': FP64 Tensor Core 67, FP32 67, TF32 989*, BF16/FP16 1,979*, "
                          "FP8/INT8 3,958* (* with sparsity: halved), GPU memory bandwidth 3.35 TB/s"),
    Accelerator(r"H200.*NVL", "NVIDIA H200 NVL",
                dict(fp64=60 * T, fp32=60 * T, tf32=417.5 * T, bf16=835.5 * T, fp16=835.5 * T, fp8=1670.5 * T,
                     int8=1670.5 * T),
                4800 * G, f"{_H200}: specifications 'H200 NVL': FP64 Tensor Core 60, FP32 60, TF32 835*, BF16/FP16 "
                          "1,671*, FP8/INT8 3,341* (* with sparsity: halved), GPU memory bandwidth 4.8 TB/s"),
    Accelerator(r"H200", "NVIDIA H200 SXM",
                dict(fp64=67 * T, fp32=67 * T, tf32=494.5 * T, bf16=989.5 * T, fp16=989.5 * T, fp8=1979 * T,
                     int8=1979 * T),
                4800 * G, f"{_H200}: specifications 'H200 SXM': FP64 Tensor Core 67, FP32 67, TF32 989*, BF16/FP16 "
                          "1,979*, FP8/INT8 3,958* (* with sparsity: halved), GPU memory bandwidth 4.8 TB/s"),
    Accelerator(r"B200", "NVIDIA B200 (HGX)",
                dict(fp64=37 * T, fp32=75 * T, tf32=1100 * T, bf16=2250 * T, fp16=2250 * T, fp8=4500 * T,
                     int8=4500 * T),
                7700 * G, f"{_B200}: 'Individual Blackwell GPU Specifications', HGX B200: FP64 37, FP32 75, TF32 2.2 "
                          "PF*, FP16/BF16 4.5 PF*, FP8 9 PF*, INT8 9 POPS* (* with sparsity: halved), GPU memory "
                          "bandwidth 7.7 TB/s"),
    Accelerator(r"MI300X", "AMD Instinct MI300X",
                dict(fp64=163.4 * T, fp32=163.4 * T, tf32=653.7 * T, bf16=1307.4 * T, fp16=1307.4 * T,
                     fp8=2614.9 * T, int8=2614.9 * T),
                5300 * G, f"{_MI300X}: peak FP64 matrix 163.4, FP32 matrix 163.4, TF32 653.7, FP16/BF16 1,307.4, "
                          "FP8 2,614.9 TFLOPS, INT8 2,614.9 TOPS (dense; the sheet lists sparsity separately), "
                          "peak memory bandwidth 5.3 TB/s"),
    Accelerator(r"V100", "NVIDIA V100 SXM2",
                dict(fp64=7.8 * T, fp32=15.7 * T, fp16=125 * T),
                900 * G, f"{_V100}: column 'V100 SXM2': double 7.8, single 15.7, tensor performance 125 TFLOPS, "
                         "memory bandwidth 900 GB/s"),
    Accelerator(r"Ascend ?910 ?C", "Huawei Ascend 910C", {}, math.nan,
                "no vendor datasheet figure: Huawei publishes no per-chip peak for the Ascend 910C that could be "
                "cited; set one with $CANN_NB_PEAKS"),
    Accelerator(r"Ascend ?910 ?B", "Huawei Ascend 910B", {}, math.nan,
                "no vendor datasheet figure: Huawei publishes no per-chip peak for the Ascend 910B (Atlas A2 "
                "server sheets give totals per server); set one with $CANN_NB_PEAKS"),
    Accelerator(r"Ascend ?910(?![ABC])", "Huawei Ascend 910", dict(fp16=256 * T, int8=512 * T), math.nan,
                f"{_ASCEND910}: 'FP16 ... 256 TeraFLOPS', 'INT8 ... 512 TeraOPS' (memory bandwidth not published "
                "there)"),
)


@dataclass
class Peaks:
    """What one device can do: dense peak FLOP/s per dtype class, memory bandwidth, and why we think so."""

    device: str
    model: str | None
    flops: dict = field(default_factory=dict)
    bytes_per_s: float = math.nan
    source: str = ""

    def flops_for(self, dtype) -> float:
        return float(self.flops.get(dtype, math.nan)) if dtype else math.nan


def _overrides() -> list[Accelerator]:
    path = os.environ.get("CANN_NB_PEAKS")
    if not path:
        return []
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return [Accelerator(k, v.get("model", k), {d: float(x) for d, x in (v.get("flops") or {}).items()},
                        float(v.get("bytes_per_s", math.nan)), f"$CANN_NB_PEAKS ({path}): {v.get('source', 'no source given')}")
            for k, v in data.items()]


def lookup(name: str | None) -> Accelerator | None:
    if not name:
        return None
    for row in (*_overrides(), *ACCELERATORS):
        if re.search(row.match, name, re.I):
            return row
    return None


def device_names(meta: dict) -> dict:
    """Recorded model name per device (``cuda:0`` -> ``NVIDIA H100 80GB HBM3``)."""
    out = {}
    for d in meta.get("devices") or []:
        if isinstance(d, dict) and d.get("device") and d.get("name"):
            out[str(d["device"])] = str(d["name"])
    if meta.get("device") and isinstance(meta["device"], str):   # Ascend: one name for the rank's NPUs
        for d in meta.get("devices") or []:
            if isinstance(d, dict) and str(d.get("device", "")).startswith("npu") and str(d["device"]) not in out:
                out[str(d["device"])] = meta["device"]
    return out


def device_peaks(meta: dict, device: str) -> Peaks:
    """Peaks of one device of a profile: the table for accelerators, the measured figures for the CPU."""
    if device == "unlinked":
        return Peaks(device, None, {}, math.nan, "the trace does not link these ops to the device tasks that ran "
                                                 "them (e.g. torch_npu's task queue): their device and time are unknown")
    if device == "cpu" or device.startswith("host"):
        from .cpu_peaks import cpu_peaks
        return cpu_peaks(meta)
    names = device_names(meta)
    name, note = names.get(device), ""
    same_kind = {n for d, n in names.items() if d.split(":")[0] == device.split(":")[0]}
    if name is None and len(same_kind) == 1:
        # a trace whose device properties number GPUs differently from its kernels (HIP under
        # HIP_VISIBLE_DEVICES, e.g.): one model on the machine, so it is this device's model too
        name = same_kind.pop()
        note = f" (model of {device} taken from the trace's only named device of its kind)"
    row = lookup(name)
    if row is None:
        why = f"unknown device: {device} is '{name}', not in the peaks table" if name else \
            f"unknown device: the trace names no model for {device}"
        return Peaks(device, name, {}, math.nan, why + " (set peaks with $CANN_NB_PEAKS)")
    return Peaks(device, row.model, dict(row.flops), row.bytes_per_s, row.source + note)


def peaks_table():
    """The accelerator table as a DataFrame (docs and the user's check): model, dtype peaks, bandwidth, source."""
    import pandas as pd
    rows = []
    for a in ACCELERATORS:
        rows.append({"model": a.model, "match": a.match,
                     **{f"{d}_tflops": a.flops.get(d, math.nan) / T
                        for d in ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")},
                     "bandwidth_gbps": a.bytes_per_s / G, "source": a.source})
    return pd.DataFrame(rows)
