"""Collectors: real sources of timing, memory and utilisation data.

Registry by name; modules are imported lazily so that `import cann_nb` does not import torch.
"""

from __future__ import annotations

import importlib

from .base import Collected, CollectOptions, Collector

_REGISTRY = {
    "torch": "cann_nb.collect.torch_collector:TorchCollector",
    "host": "cann_nb.collect.host:HostSampler",
    "python": "cann_nb.collect.python_tracer:PythonTracer",
    "gc": "cann_nb.collect.gc_pauses:GcCollector",        # Python garbage-collector passes (gc.callbacks)
    "custom": "cann_nb.collect.custom_metrics:CustomMetricsCollector",  # [issue 8] cann_nb.add_custom_metric
    "tensorflow": "cann_nb.collect.tensorflow_collector:TensorFlowCollector",  # [issue 18] tf.profiler
    "mindspore": "cann_nb.collect.mindspore_collector:MindSporeCollector",     # [issue 18] mindspore.profiler
}
DEFAULT = ("torch", "host", "gc")


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def get(name: str) -> type[Collector]:
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown collector {name!r}; choose from {', '.join(_REGISTRY)}") from None
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)


__all__ = ["Collected", "CollectOptions", "Collector", "get", "names", "DEFAULT"]
