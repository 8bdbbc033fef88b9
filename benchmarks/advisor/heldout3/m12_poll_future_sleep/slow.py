"""Work handed to a background thread pool, then waited for with a polling loop,
`while not fut.done(): time.sleep(0.02)`: each job finishes in a few milliseconds but the main thread
only notices at its next wake-up, so the process sits idle most of the time (StackOverflow / GitHub
issues: "polling futures with sleep", "use fut.result() / as_completed instead of sleeping")."""
PLANTED = ("idle",)
TOL = 1e-6
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

rng = np.random.default_rng(0)
CHUNKS = [rng.normal(size=(800, 160)) for _ in range(24)]


def analyse(chunk):
    centred = chunk - chunk.mean(0)
    s = np.linalg.svd(centred, compute_uv=False)
    return s[:8] / s.sum()


def postprocess(spectrum, chunk):
    z = np.sort(np.abs(chunk).ravel())
    return np.concatenate([spectrum, [z[z.size // 2], z[-1]]])


def main():
    rows = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        for chunk in CHUNKS:
            fut = pool.submit(analyse, chunk)
            while not fut.done():
                time.sleep(0.02)
            rows.append(postprocess(fut.result(), chunk))
    return np.stack(rows)


if __name__ == "__main__":
    result = main()
