"""Name-based classification of events: device work (compute / comm / memcpy / memset), host runtime
calls (launch / sync / alloc), memcpy direction and memory kind, known host activities (GC, data
loading, compilation). Regexes run once per *distinct* name (the categories), never per event.

Sources of the patterns: HTA ``hta/common/types.py`` (COMM/MEMORY/COMPUTE regexes), Nsight Systems'
sync and memcpy rules, msprof-analyze's API lists (aclrtSynchronizeStream, aclrtMalloc, Node@launch,
aclopCompileAndExecute), CANN/torch_npu task types.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..ingest.comm_markers import DEVICE_COMM_RE, HOST_COMM_RE

DEVICE_CATS = ("kernel", "memcpy", "memset", "comm")
HOST_CATS = ("op", "runtime", "python", "annotation")

# collectives by the tracing libraries' own markers, never a word inside a name (ingest/comm_markers.py)
COMM_RE = DEVICE_COMM_RE
# device-side markers of a sync (Kineto "cuda_sync" events): not work, not idle-causing tasks
SYNC_MARKER_RE = re.compile(r"^(Stream Sync|Context Sync|Event Sync|Stream Wait Event|Device Sync)", re.I)
LAUNCH_RE = re.compile(r"LaunchKernel|cuLaunch|LaunchCooperative|GraphLaunch|hipLaunch|hipModuleLaunch|"
                       r"hipExtLaunch|ExtModuleLaunch|Node@launch|aclopCompileAndExecute|aclnn|aclrtLaunch|"
                       r"MemcpyAsync|MemsetAsync|Memcpy2DAsync|LaunchKernelExC|rtKernelLaunch|"
                       r"^aclrt(Memcpy|Memset)Async|KernelLaunch", re.I)
# host calls that block until the device catches up
SYNC_RE = re.compile(r"(cuda|hip|aclrt|cu)(Device|Stream|Event|Ctx)Synchroni[sz]e|SynchronizeStream|StreamSync|"
                     r"SynchronizeDevice|SynchronizeEvent|^(cuda|hip|aclrt)Memcpy(?!.*Async)|"
                     r"^(cuda|hip|aclrt)Memset(?!.*Async)|^cuMemcpy[DH]to[DH](?!.*Async)", re.I)
ALLOC_RE = re.compile(r"^(cuda|hip|aclrt|cu)(Malloc|Free|MemAlloc|MemFree|HostAlloc|HostFree|MallocHost|"
                      r"FreeHost|MallocAsync|FreeAsync)|aclMallocMemInner|FreePhysical|aclrtFree|"
                      r"aclrtMalloc", re.I)
GC_RE = re.compile(r"^(gc|python gc|gc\.collect|GarbageCollect)|\bgc collect", re.I)
DATALOADER_RE = re.compile(r"dataloader|_next_data|__next__.*data|fetch.*batch|data_loader", re.I)
# compilation (not the execution of compiled code: CompiledFunction / Torch-Compiled Region run it)
COMPILE_RE = re.compile(r"aclopCompile|OpCompile|GraphCompile|compile_fx|compile_inner|convert_frame|"
                        r"dynamo.*compil|aot_autograd|inductor.*(compil|codegen)|triton.*compil|"
                        r"^(torch\.)?jit.*compil|recompil", re.I)
# framework ops that wait for the device by themselves (.item(), bool(tensor), data-dependent shapes):
# treated as syncs when the trace records no sync call inside them (e.g. Ascend Level0, no CANN events)
IMPLICIT_SYNC_RE = re.compile(r"^aten::(_local_scalar_dense|item|is_nonzero|nonzero|equal|allclose|masked_select|"
                              r"unique\w*)$", re.I)
SYNC_BN_RE = re.compile(r"sync_?batch_?norm", re.I)

MEMCPY_KIND_PATTERNS = (
    ("H2D", re.compile(r"HtoD|H2D|Host ?to ?Device|HOST_TO_DEVICE", re.I)),
    ("D2H", re.compile(r"DtoH|D2H|Device ?to ?Host|DEVICE_TO_HOST", re.I)),
    ("D2D", re.compile(r"DtoD|D2D|Device ?to ?Device|DEVICE_TO_DEVICE|PtoP|P2P|peer", re.I)),
    ("H2H", re.compile(r"HtoH|H2H", re.I)),
)
PAGEABLE_RE = re.compile(r"pageable", re.I)
PINNED_RE = re.compile(r"pinned", re.I)


def _lookup(categories, fn) -> np.ndarray:
    return np.asarray([fn(str(c)) for c in categories])


def name_flags(names: pd.Series, pattern: re.Pattern) -> np.ndarray:
    """Boolean per event: its name matches ``pattern`` (regex run once per distinct name)."""
    if not len(names):
        return np.zeros(0, dtype=bool)
    cat = names if isinstance(names.dtype, pd.CategoricalDtype) else names.astype("category")
    codes = cat.cat.codes.to_numpy()
    table = _lookup(cat.cat.categories, lambda s: bool(pattern.search(s)))
    table = np.append(table.astype(bool), False)  # code -1 (NaN) -> False
    return table[codes]


def memcpy_kind(names: pd.Series) -> np.ndarray:
    """'H2D', 'D2H', 'D2D', 'H2H' or '' per event (from the name, as Kineto/CANN write it)."""
    if not len(names):
        return np.zeros(0, dtype=object)
    cat = names if isinstance(names.dtype, pd.CategoricalDtype) else names.astype("category")

    def kind(s: str) -> str:
        for k, p in MEMCPY_KIND_PATTERNS:
            if p.search(s):
                return k
        return ""

    table = np.append(_lookup(cat.cat.categories, kind).astype(object), "")
    return table[cat.cat.codes.to_numpy()]


def is_accelerator(device: pd.Series) -> np.ndarray:
    """True for events on an accelerator device (anything but the host 'cpu')."""
    if not len(device):
        return np.zeros(0, dtype=bool)
    cat = device if isinstance(device.dtype, pd.CategoricalDtype) else device.astype("category")
    table = _lookup(cat.cat.categories, lambda s: not (s == "cpu" or s.startswith("cpu") or s.startswith("host")))
    table = np.append(table.astype(bool), False)
    return table[cat.cat.codes.to_numpy()]


# roles: what an event *is* for the analyses, one small int per event
ROLES = ("compute", "comm", "memcpy", "memset", "sync_marker",          # device side
         "op", "launch", "sync", "alloc", "runtime", "python", "annotation", "step", "host_comm", "other")
R = {name: i for i, name in enumerate(ROLES)}
DEVICE_ROLES = (R["compute"], R["comm"], R["memcpy"], R["memset"])


def roles(events: pd.DataFrame) -> np.ndarray:
    """One role code (index into ROLES) per event."""
    n = len(events)
    out = np.full(n, R["other"], dtype=np.int8)
    if not n:
        return out
    cat = events["cat"].astype(str).to_numpy() if not isinstance(events["cat"].dtype, pd.CategoricalDtype) \
        else np.asarray(events["cat"].cat.categories.astype(str))[events["cat"].cat.codes.to_numpy()]
    names = events["name"]
    accel = is_accelerator(events["device"])
    src = events["src_cat"].astype(str).to_numpy() if "src_cat" in events.columns else None
    marker = name_flags(names, SYNC_MARKER_RE)
    if src is not None:
        marker |= src == "cuda_sync"
    comm_name = name_flags(names, COMM_RE)
    dev_cat = np.isin(cat, DEVICE_CATS)
    dev = dev_cat & accel
    out[dev & (cat == "kernel")] = R["compute"]
    out[dev & ((cat == "comm") | ((cat == "kernel") & comm_name))] = R["comm"]
    out[dev & (cat == "memcpy")] = R["memcpy"]
    out[dev & (cat == "memset")] = R["memset"]
    out[accel & marker] = R["sync_marker"]
    host = ~dev & ~(accel & marker)
    out[host & (cat == "op")] = R["op"]
    out[host & np.isin(cat, ("kernel", "memcpy", "memset"))] = R["op"]  # host-side "kernels" (CPU work)
    out[host & (cat == "comm")] = R["host_comm"]
    out[host & (cat == "op") & _outermost(events, name_flags(names, HOST_COMM_RE))] = R["host_comm"]
    out[host & (cat == "python")] = R["python"]
    out[host & (cat == "annotation")] = R["annotation"]
    out[host & (cat == "step")] = R["step"]
    rt = host & (cat == "runtime")
    if rt.any():
        out[rt] = R["runtime"]
        out[rt & name_flags(names, LAUNCH_RE)] = R["launch"]
        out[rt & name_flags(names, ALLOC_RE)] = R["alloc"]
        out[rt & name_flags(names, SYNC_RE)] = R["sync"]
    return out


def _outermost(events: pd.DataFrame, flag: np.ndarray) -> np.ndarray:
    """``flag`` where the event's parent is not itself flagged (c10d::allreduce_ yes, the
    record_param_comms inside it no): one collective call is one span."""
    if not flag.any() or "parent" not in events.columns:
        return flag
    ids = events["id"].to_numpy()
    parent = events["parent"].to_numpy()
    order = np.argsort(ids, kind="stable")
    pos = np.clip(np.searchsorted(ids, parent, sorter=order), 0, len(ids) - 1)
    row = order[pos]
    parent_flagged = (parent >= 0) & (ids[row] == parent) & flag[row]
    return flag & ~parent_flagged
