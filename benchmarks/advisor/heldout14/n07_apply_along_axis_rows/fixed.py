import numpy as np

rng = np.random.default_rng(0)
N_WINDOWS, WIDTH = 3_500, 128
t = np.arange(WIDTH) / WIDTH
freq = rng.uniform(2.0, 20.0, size=(N_WINDOWS, 1))
windows = np.sin(2 * np.pi * freq * t) + 0.3 * rng.standard_t(3, size=(N_WINDOWS, WIDTH))


def window_features(w: np.ndarray) -> np.ndarray:
    # the same steps for all windows at once, along axis 1
    med = np.median(w, axis=1, keepdims=True)
    mad = np.median(np.abs(w - med), axis=1, keepdims=True) * 1.4826 + 1e-9
    z = np.clip((w - med) / mad, -5.0, 5.0)
    return np.stack([z.mean(axis=1), z.std(axis=1), np.abs(np.diff(z, axis=1)).mean(axis=1),
                     (z > 3.0).mean(axis=1), z.max(axis=1) - z.min(axis=1)], axis=1)


def main():
    feats = window_features(windows)
    centred = feats - feats.mean(axis=0)
    cov = centred.T @ centred / (len(feats) - 1)
    return np.concatenate([feats[:50].ravel(), cov.ravel()])


if __name__ == "__main__":
    result = main()
