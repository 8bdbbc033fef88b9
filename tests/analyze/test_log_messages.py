"""eager_log_messages on real scripts under the Python tracer: a message formatted for a disabled level
is found; the same call with lazy arguments, or with the level on (records made), is not."""

from __future__ import annotations

from cann_nb.analyze import findings

from .test_python_loops import by_rule, profile_script

SRC = """
    import logging

    log = logging.getLogger("cann_nb_test.{name}")
    log.setLevel(logging.{level})
    log.addHandler(logging.NullHandler())
    log.propagate = False
    RECORDS = [{{"id": i, "values": [i * 0.5] * 12, "tags": {{"a": i, "b": str(i)}}}} for i in range(4000)]

    def main():
        total = 0.0
        for rec in RECORDS:
            {call}
            total += sum(rec["values"])
        return total

    result = main()
"""
EAGER = 'log.debug(f"record {rec!r} total {total!r}")'
LAZY = 'log.debug("record %r total %r", rec, total)'


def _rules(tmp_path, name, call, level="INFO"):
    prof = profile_script(tmp_path, SRC.format(name=name, call=call, level=level), name)
    return by_rule(findings(prof))


def test_a_message_formatted_for_a_disabled_level_is_found(tmp_path):
    (f,) = _rules(tmp_path, "eager", EAGER)["eager_log_messages"]
    assert f.category == "redundant" and 0 < f.est_gain_pct <= 100
    assert f.evidence["calls"] == 4000 and f.evidence["logging_call"].endswith("Logger.debug")
    assert "%r" in f.suggestion and "isEnabledFor" in f.suggestion


def test_lazy_arguments_or_an_enabled_level_are_not(tmp_path):
    assert "eager_log_messages" not in _rules(tmp_path, "lazy", LAZY)
    # DEBUG on: every call makes a record, whose message must be formatted anyway
    assert "eager_log_messages" not in _rules(tmp_path, "on", EAGER, level="DEBUG")
