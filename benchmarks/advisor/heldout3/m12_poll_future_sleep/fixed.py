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
            rows.append(postprocess(fut.result(), chunk))     # blocks until done, wakes at once
    return np.stack(rows)


if __name__ == "__main__":
    result = main()
