"""Sensor-record cleaning loop logs each record and the running state with `log.debug(f"...{rec!r}...")`: the
f-string builds the full reprs on every call although DEBUG is disabled, instead of passing lazy `%r`
arguments (code review: "turning logging off did not make the job faster")."""
PLANTED = ("redundant", "host_bound", "hotspot")
TOL = 1e-9
import logging
import random

random.seed(0)
log = logging.getLogger("etl.clean")
N_RECORDS = 30_000
RECORDS = [
    {
        "id": i,
        "site": random.choice(["north", "south", "east", "west"]),
        "readings": [random.gauss(20.0, 5.0) for _ in range(8)],
        "flags": {"calibrated": random.random() > 0.1, "battery": random.uniform(3.0, 4.2)},
    }
    for i in range(N_RECORDS)
]


def main():
    state = {"n": 0, "sum": 0.0, "clipped": 0, "by_site": {}}
    for rec in RECORDS:
        log.debug(f"cleaning record {rec!r} with state {state!r}")
        vals = [min(max(v, 0.0), 40.0) for v in rec["readings"]]
        state["clipped"] += sum(1 for a, b in zip(vals, rec["readings"]) if a != b)
        mean = sum(vals) / len(vals)
        if not rec["flags"]["calibrated"]:
            mean *= 0.98
        state["n"] += 1
        state["sum"] += mean
        state["by_site"][rec["site"]] = state["by_site"].get(rec["site"], 0.0) + mean
    return [state["n"], state["sum"], state["clipped"]] + [state["by_site"][s] for s in sorted(state["by_site"])]


if __name__ == "__main__":
    result = main()
