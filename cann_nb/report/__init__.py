"""Rendering of profiles as static text/HTML (notebook fallback, static.py) and as self-contained HTML
reports (one file that opens offline, from disk, in any modern browser):

    from cann_nb.report import write_report, report_html
    write_report(profile, "report.html")                     # -> Path
    write_report(profile, "diff.html", against=baseline)     # a comparison: baseline -> profile
    html = report_html(profile, title="ResNet step")         # the same page as a string

``profile`` and ``against`` take a Profile, a stored profile directory or importable trace, or a name in
the session store; ``profile`` may also be a ``Comparison`` (``cann_nb.compare(a, b)``), or a group of
ranks (a ProfileGroup, a stored group, a folder of ranks, or ``cann_nb.cluster(GROUP)``'s ClusterResult:
the cluster report, cluster.py). The same
function backs ``Profile.to_html(path)``, ``%cann_report NAME -o report.html`` and
``python -m cann_nb report``. What a report holds and how it stays safe: build.py and sections.py.
"""

from __future__ import annotations


def report_html(profile, *, against=None, title: str | None = None, **kwargs) -> str:
    from .build import report_html as _report_html

    return _report_html(profile, against=against, title=title, **kwargs)


def write_report(profile, path, *, against=None, title: str | None = None, **kwargs):
    from .build import write_report as _write_report

    return _write_report(profile, path, against=against, title=title, **kwargs)


__all__ = ["report_html", "write_report"]
