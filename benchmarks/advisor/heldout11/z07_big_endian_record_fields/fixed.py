import numpy as np

rng = np.random.default_rng(0)
N_FRAMES, N_CH, N_QUERIES = 300_000, 6, 400
WINDOWS = (16, 64, 256, 1024)  # multi-scale spike detector
WIRE = np.dtype([("seq", ">u4"), ("t", ">f8"), ("ch", ">f8", (N_CH,)), ("flags", ">u2")])


def make_payload():
    rec = np.zeros(N_FRAMES, dtype=WIRE)
    rec["seq"] = np.arange(N_FRAMES)
    rec["t"] = np.arange(N_FRAMES) * 1e-3 + rng.uniform(0, 1e-4, N_FRAMES)
    drift = np.cumsum(rng.normal(0, 0.01, (N_FRAMES, N_CH)), axis=0)
    rec["ch"] = drift + rng.normal(0, 1, (N_FRAMES, N_CH)) + (rng.random((N_FRAMES, N_CH)) < 1e-3) * 8.0
    return rec.tobytes()


QUERIES = np.sort(rng.uniform(0, N_FRAMES * 1e-3, (N_QUERIES, 2)), axis=1)
QUERY_CH = rng.integers(0, N_CH, N_QUERIES)


def rolling_mean(x, w):
    c = np.cumsum(x)
    out = np.empty_like(c)
    out[:w] = c[:w] / np.arange(1, w + 1)
    out[w:] = (c[w:] - c[:-w]) / w
    return out


def detect(t, ch):
    rate = 1.0 / np.median(np.diff(t))
    spikes = []
    for k in range(N_CH):
        x = ch[:, k]
        for w in WINDOWS:
            mu = rolling_mean(x, w)
            sd = np.sqrt(np.maximum(rolling_mean(x * x, w) - mu * mu, 1e-12))
            z = (x - mu) / sd
            spikes.append(np.count_nonzero(np.abs(z) > 5.0))
    return np.array([rate, *spikes])


def answer_queries(t, ch):
    out = np.empty((N_QUERIES, 3))
    for q, ((a, b), k) in enumerate(zip(QUERIES, QUERY_CH)):
        i0, i1 = np.searchsorted(t, [a, b])
        seg = ch[i0:i1 + 1, k]
        out[q] = seg.mean(), seg.std(), seg.max()
    return out


def main():
    rec = np.frombuffer(make_payload(), dtype=WIRE)
    # convert each field once to native byte order and contiguous memory
    t = rec["t"].astype(np.float64)
    ch = np.ascontiguousarray(rec["ch"].astype(np.float64))
    return np.concatenate([detect(t, ch), answer_queries(t, ch).ravel()])


if __name__ == "__main__":
    result = main()
