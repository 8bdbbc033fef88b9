"""cann_nb: a notebook-native profiler for AI models on Ascend NPUs, GPUs and CPUs.

    %load_ext cann_nb
    %%cann_profile -n my_model
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import CannNbError, CollectorUnavailable, ProfileValidationError, StoreError, TraceFormatError
from .model import Profile
from .frontends.api import Profiler, start_continuous_monitoring, stop_continuous_monitoring  # Python API, monitoring
from .collect.custom_metrics import add_custom_metric, remove_custom_metric


def load_ipython_extension(ipython):
    from .frontends.magic import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython):
    from .frontends.magic import unload_ipython_extension as _unload

    _unload(ipython)


def load_session(path=None):
    """The session store at ``path`` (default ``$CANN_NB_DIR`` or ./profile_results), every profile in it."""
    from .store import Session

    return Session(path)


def load(path, name=None, **options):
    """A Profile from a stored profile directory or any importable trace or folder; a ProfileGroup
    (rank -> Profile) for a folder of ranks. ``options``: workers, progress (multi-rank imports)."""
    from .ingest.load import load as _load

    return _load(path, name=name, **options)


def step() -> None:
    """Mark the start of an iteration (a step) in the profile being recorded; call it at the top of each
    training or inference iteration. A no-op when nothing is profiling, so scripts run unchanged
    without cann_nb. Steps give per-iteration times (``check --metric step_p50``), let ``run
    --skip-steps N`` drop warm-up iterations, and let ``compare`` test changes against the noise."""
    from .collect.active import mark_step

    mark_step()


def compare(base, new, **kwargs):
    """Compare two profiles (Profiles, store names or paths): ``base`` before, ``new`` after.
    See ``cann_nb.analyze.comparison`` for the columns, buckets and the significance test."""
    from .analyze.comparison import compare as _compare

    return _compare(base, new, **kwargs)


__all__ = [
    "Profile", "load", "load_session", "compare", "step", "CannNbError", "CollectorUnavailable",
    "ProfileValidationError", "StoreError", "TraceFormatError", "__version__",
]
__all__ += ["Profiler", "start_continuous_monitoring", "stop_continuous_monitoring", "add_custom_metric",
            "remove_custom_metric"]
