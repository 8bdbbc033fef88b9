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


def _register_views() -> None:
    """The view layer's renderers for Profile and Comparison (model.register_renderer). Each imports
    its module on first use: widgets pull in anywidget and bokeh, which a CLI run never needs."""
    from importlib import import_module

    from .model import register_renderer

    def lazy(module: str, function: str):
        return lambda *args, **kwargs: getattr(import_module(module, __name__), function)(*args, **kwargs)

    for kind, (module, function) in {
        "profile.bundle": (".widgets.display", "display_bundle"),
        "profile.show": (".widgets.display", "show"),
        "profile.text": (".widgets.static", "summary_text"),
        "profile.report": (".report", "write_report"),
        "comparison.bundle": (".widgets.display", "comparison_bundle"),
        "comparison.text": (".widgets.static", "comparison_text"),
        "cluster.bundle": (".widgets.display", "cluster_bundle"),
        "cluster.text": (".widgets.static", "cluster_text"),
    }.items():
        register_renderer(kind, lazy(module, function))


_register_views()


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


def load(path, name=None, *, store=None, **options):
    """A Profile from a stored profile directory, any importable trace or folder, or a name in the store
    (``NAME``, ``NAME@k``, ``GROUP/rank=N``; ``store`` default $CANN_NB_DIR or ./profile_results); a
    ProfileGroup (rank -> Profile) for a folder of ranks or a stored group. ``name`` renames the result;
    ``options``: workers, progress (multi-rank imports)."""
    from pathlib import Path

    from .ingest.load import load as _load, resolve

    if isinstance(path, (str, Path)) and Path(path).expanduser().exists():
        return _load(Path(path).expanduser(), name=name, **options)
    got = resolve(path, store, group_ok=True)
    if name:
        got.meta["name"] = name
    return got


def step() -> None:
    """Mark the start of an iteration (a step) in the profile being recorded; call it at the top of each
    training or inference iteration. A no-op when nothing is profiling, so scripts run unchanged
    without cann_nb. Steps give per-iteration times (``check --metric step_p50``), let ``run
    --skip-steps N`` drop warm-up iterations, and let ``compare`` test changes against the noise."""
    from .collect.active import mark_step

    mark_step()


def compare(base, new, *, store=None, record=None, **options):
    """Compare two profiles (Profiles, paths, or names in ``store``: NAME, NAME@k, GROUP/rank=N): ``base``
    before, ``new`` after. Resolved findings go to the track record of the base's store (``record=False``:
    not). See ``cann_nb.analyze.comparison`` for the columns, buckets and the significance test."""
    from .frontends.compare import compare as _compare

    return _compare(base, new, store=store, record=record, **options)


def cluster(group, *, store=None, scheduler=None):
    """The cross-rank analysis of a group of ranks (a ProfileGroup, a stored group's name in ``store`` or
    its directory, or a folder of ranks): a ClusterResult whose DataFrames are ``ranks``, ``stragglers``,
    ``collectives``, ``steps`` (rank x step) plus ``findings``; as a cell's value it shows the cluster
    view. ``scheduler``: a Dask scheduler address (``tcp://HOST:PORT``) to run the per-rank work on;
    default here, one rank at a time, with the embedded DuckDB engine."""
    from .frontends.cluster import cluster as _cluster

    return _cluster(group, store=store, scheduler=scheduler)


__all__ = [
    "Profile", "load", "load_session", "compare", "cluster", "step", "CannNbError", "CollectorUnavailable",
    "ProfileValidationError", "StoreError", "TraceFormatError", "__version__",
]
__all__ += ["Profiler", "start_continuous_monitoring", "stop_continuous_monitoring", "add_custom_metric",
            "remove_custom_metric"]
