"""Efficiency (roofline): what each op and each device did against what the hardware can do.

    tensors.py   shape/dtype strings as recorded -> tensors (dims, element size, dtype class)
    formulas.py  FLOPs and bytes moved of one op from its inputs, per op family (NaN: no formula)
    cost.py      the formulas over a whole events table (once per distinct name/shapes/dtypes), and
                 which event carries each cost (nesting, host op -> device tasks)
    peaks.py     peak FLOP/s per dtype and memory bandwidth: a cited table of accelerators; the host CPU
    cpu_peaks.py a micro-benchmark of the host CPU, measured once per machine and cached
    roofline.py  achieved rates, intensity, bound class per op; MFU per device and per step

The contract (DESIGN.md, "Efficiency (roofline)"): ``analyze --json`` ``summary.efficiency`` and the
hotspot columns; every number carries the source of its peak; unknown is NaN / ``unknown``.
"""

from .roofline import device_efficiency, op_efficiency, roofline_points, step_mfu

__all__ = ["device_efficiency", "op_efficiency", "roofline_points", "step_mfu"]
