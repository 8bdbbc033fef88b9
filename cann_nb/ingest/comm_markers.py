"""Which events are collective communication, by the markers the tracing libraries themselves write.

A word such as "broadcast" or "all_reduce" anywhere in a name is not a marker: compute kernels carry
such words (``...type_specialized_broadcast_kernel_launcher<...MulFunctor...>`` is an elementwise
multiply, ``aten::broadcast_tensors`` a view). What is a marker:

- device kernels of the collective libraries, named by their prefix: NCCL ``ncclKernel_*`` /
  ``ncclDevKernel_*``, RCCL (the same names, or ``rccl*``), MSCCL ``msccl*``, HCCL ``hccl*``, Ascend HCCL
  operators ``hcom_*`` (the kernel may be written as ``void ncclKernel...`` when demangled);
- XLA's collective HLO ops (``all-reduce.3``, ``all-gather-start``, ``collective-permute-done``);
- on the host, the ops torch.distributed records: ``c10d::*`` and ``record_param_comms``;
- outside names: Kineto's ``Collective name`` argument (kineto_columns) and Ascend's HCCL task and core
  types (ascend/assemble.py).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

DEVICE_COMM_RE = re.compile(
    r"^(void\s+)?(\w+::)*(nccl|rccl|msccl|hccl|hcom_)"
    r"|^(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute|collective-broadcast)"
    r"(-start|-done)?(\.\d+)?$", re.I)
HOST_COMM_RE = re.compile(r"^c10d::|^record_param_comms$|^(hccl|hcom_)", re.I)


def name_flags(names: pd.Series, pattern: re.Pattern) -> np.ndarray:
    """Boolean per event: its name matches ``pattern`` (run once per distinct name)."""
    if not len(names):
        return np.zeros(0, dtype=bool)
    cat = names if isinstance(names.dtype, pd.CategoricalDtype) else names.astype("category")
    table = np.array([bool(pattern.search(str(c))) for c in cat.cat.categories] + [False], dtype=bool)
    return table[cat.cat.codes.to_numpy()]   # code -1 (NaN) reads the appended False


def is_device_comm_name(name) -> bool:
    return isinstance(name, str) and bool(DEVICE_COMM_RE.search(name))
