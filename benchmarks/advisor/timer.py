"""Time one run of a benchmark script the way ``cann-nb run`` executes it (``runpy`` as ``__main__``), with
numpy, pandas and torch already imported (under ``cann-nb run`` cann_nb and its collectors import them
before the script starts); save the script's ``result`` for the slow/fixed agreement check.

    python benchmarks/advisor/timer.py SCRIPT RESULT.npy    -> prints the seconds the script took
"""

import runpy
import sys
import time

import numpy as np
import pandas  # noqa: F401  (cann_nb imports it before the script runs)

try:
    import torch  # noqa: F401  (imported outside the timed region, as under cann-nb run)
    import torch._dynamo  # noqa: F401  (cann-nb run's torch collector has imported it: torch.optim's first step
    #                        would otherwise pay ~0.9 s importing it inside the script)
except ImportError:
    torch = None


def as_array(value):
    if hasattr(value, "detach"):
        return value.detach().cpu().double().numpy()
    return np.asarray(value, dtype=float)


def main(script: str, out: str) -> None:
    sys.argv = [script]
    t = time.perf_counter()
    ns = runpy.run_path(script, run_name="__main__")
    seconds = time.perf_counter() - t
    np.save(out, as_array(ns.get("result")))
    print(f"{seconds:.6f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
