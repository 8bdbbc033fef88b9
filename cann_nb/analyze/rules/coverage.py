"""Which rules could not run on a profile, and what would let them: each rule declares the data it
``needs`` (table.py); a profile that lacks it gets no finding from that rule, and the user is told so
(``analyze --json`` ``profile.analysis_skipped``, the text output, the Suggestions panel's note)
instead of reading silence as health."""

from __future__ import annotations

import numpy as np

from ..context import context

# what each need is, and what turns it on when a flag can (None: the run itself must change)
NEED_TEXT = {
    "shapes": "input shapes and dtypes of ops",
    "memory": "allocation events",
    "steps": "two or more recorded steps",
    "device": "device tasks (a GPU/NPU run)",
    "ascend": "Ascend task details (core type, block dim, PMU)",
    "values": "value signatures of calls (torch's recorded inputs and allocations, collect/torch_values.py)",
}
ENABLE = {
    "shapes": "--shapes (the default; Profiler(shapes=True); PROFILER_MODE=detailed)",
    "memory": "--memory (the default; Profiler(memory=True))",
    "steps": "--repeat N, or cann_nb.step() at the top of each iteration",
    "values": "--shapes and --memory (the defaults) under the torch collector",
}


def available(profile) -> dict[str, bool]:
    """Which of the needs the profile's data meets."""
    ctx = context(profile)
    ev = profile.events
    host_ops = (ev["cat"].astype(str) == "op").to_numpy() if len(ev) else np.zeros(0, bool)
    has_shapes = bool(host_ops.any() and ev["dtypes"].notna().to_numpy()[host_ops].any()
                      and ev["shapes"].notna().to_numpy()[host_ops].any())
    return {
        "shapes": has_shapes,
        "memory": bool(len(profile.memory)),
        "steps": bool(len(ctx.steps) >= 2),
        "device": bool(len(ctx.accel_devices)),
        "ascend": "core_type" in ev.columns,
        "values": bool("value_sig" in ev.columns and (ev["value_sig"].to_numpy() != 0).any()),
    }


def _collector_ran(profile, name: str) -> bool:
    info = ((profile.meta or {}).get("collectors") or {}).get(name) or {}
    return info.get("status") == "ok"


def _enable(profile, need: str):
    """The flag that records ``need`` in a run like this one, or None when no flag can."""
    if need == "shapes":
        # the Python tracer (numpy, pure Python) records no shapes; an imported trace is what it is
        return ENABLE[need] if _collector_ran(profile, "torch") else None
    if need in ("memory", "values"):
        return ENABLE[need] if _collector_ran(profile, "torch") else None
    return ENABLE.get(need)


def skipped_rules(profile, rules=None) -> list[dict]:
    """One record per rule the profile's data does not let run: ``rule``, ``category``, ``missing``
    (needs), ``reason`` and ``enable`` (the flag that records what is missing, or None)."""
    from . import all_rules

    have = available(profile)
    out = []
    for r in rules if rules is not None else all_rules():
        missing = [n for n in r.needs if not have.get(n, True)]
        if not missing:
            continue
        hints = [h for h in (_enable(profile, n) for n in missing) if h]
        out.append({"rule": r.id, "category": r.category, "missing": missing,
                    "reason": "needs " + " and ".join(NEED_TEXT.get(n, n) for n in missing),
                    "enable": "; ".join(hints) if len(hints) == len(missing) else None})
    return out


def skipped_note(skipped: list[dict]) -> str:
    """One line for text outputs and the Suggestions panel: the rules a flag would enable, named with
    the flag; the rules that need another kind of run (a GPU, an Ascend trace) only counted, since no
    flag helps (``analysis_skipped`` lists them all)."""
    if not skipped:
        return ""
    by_flag: dict[str, list[str]] = {}
    other: dict[str, int] = {}
    for s in skipped:
        if s["enable"]:
            by_flag.setdefault(s["enable"], []).append(s["rule"])
        else:
            other[s["reason"].replace("needs ", "", 1)] = other.get(s["reason"].replace("needs ", "", 1), 0) + 1
    parts = [f"{', '.join(rules)} (enable with {flag})" for flag, rules in by_flag.items()]
    note = ("Rules that could not run on this profile: " + "; ".join(parts) + ".") if parts else ""
    if other:
        note += (" " if note else "") + "Not applicable to this kind of run: " + ", ".join(
            f"{n} rule{'s' if n > 1 else ''} that need{'s' if n == 1 else ''} {what}" for what, n in other.items()) + "."
    return note
