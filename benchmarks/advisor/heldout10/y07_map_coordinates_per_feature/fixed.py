import numpy as np
from scipy import ndimage

N_FRAMES = 4
SIZE = 256
N_FEATURES = 14
HALF = 4          # patch is (2*HALF+1)^2 pixels
SEARCH = 2        # integer search radius around the predicted position


def synthetic_sequence(seed=0):
    rng = np.random.default_rng(seed)
    base = ndimage.gaussian_filter(rng.random((SIZE + 40, SIZE + 40)), 2.0)
    frames = []
    for k in range(N_FRAMES):
        dy, dx = 0.7 * k, 1.3 * k
        frames.append(ndimage.shift(base, (dy, dx), order=1, mode="mirror")[20:-20, 20:-20])
    return frames


def patch_grid():
    r = np.arange(-HALF, HALF + 1, dtype=np.float64)
    gy, gx = np.meshgrid(r, r, indexing="ij")
    return gy.ravel(), gx.ravel()


def sample_patch(frame, y, x, gy, gx):
    coords = np.vstack([y + gy, x + gx])
    return ndimage.map_coordinates(frame, coords, order=3, mode="mirror", prefilter=False)


def track(prev, cur, points, gy, gx):
    prev = ndimage.spline_filter(prev, order=3, mode="mirror")
    cur = ndimage.spline_filter(cur, order=3, mode="mirror")
    new_points = np.empty_like(points)
    errors = np.empty(len(points))
    for i, (y, x) in enumerate(points):
        template = sample_patch(prev, y, x, gy, gx)
        best = (np.inf, y, x)
        for sy in range(-SEARCH, SEARCH + 1):
            for sx in range(-SEARCH, SEARCH + 1):
                cand = sample_patch(cur, y + sy * 0.5, x + sx * 0.5, gy, gx)
                ssd = float(np.sum((cand - template) ** 2))
                if ssd < best[0]:
                    best = (ssd, y + sy * 0.5, x + sx * 0.5)
        errors[i], new_points[i] = best[0], best[1:]
    return new_points, errors


def main():
    frames = synthetic_sequence()
    rng = np.random.default_rng(1)
    points = rng.uniform(30, SIZE - 30, size=(N_FEATURES, 2))
    gy, gx = patch_grid()
    tracks, errs = [points], []
    for k in range(1, N_FRAMES):
        points, e = track(frames[k - 1], frames[k], points, gy, gx)
        tracks.append(points)
        errs.append(e)
    return np.concatenate([np.stack(tracks).ravel(), np.concatenate(errs)])


if __name__ == "__main__":
    result = main()
