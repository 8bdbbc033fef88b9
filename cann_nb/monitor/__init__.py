"""Continuous sampled monitoring of a long-running process (a model server, a training job).

    import cann_nb
    mon = cann_nb.start_continuous_monitoring(interval=60, sample_rate=0.05, fn=model)
    y = mon(x)                      # serve through the monitor (or predict = mon.wrap(predict))
    cann_nb.stop_continuous_monitoring()

Modules: ``monitor`` (the Monitor and its window thread), ``recorder`` (the per-call hot path and
profiling bursts), ``window`` (a window -> compact Profile + summary), ``histogram`` (mergeable latency
histograms), ``baseline`` (rolling baseline), ``rules`` (anomaly rules and their thresholds),
``retention`` (window count/age limits), ``report`` + ``report_cli`` (``python -m cann_nb monitor-report``).
"""

from __future__ import annotations

from .monitor import Monitor, step_all
from .report import load_windows, summarize
from .rules import RULES, rules_table

__all__ = ["Monitor", "step_all", "RULES", "rules_table", "load_windows", "summarize"]
