"""k-nearest-neighbour classification of customer profiles with a feature-weighted Euclidean distance
(feature weights from a previous feature-importance step): distances from every query profile to every
labelled profile, then a distance-weighted vote among the 15 nearest (modelled on a StackOverflow question
about scipy's cdist with a custom weighted distance being very slow)."""
PLANTED = ("host_bound", "hotspot", "launch_overhead")
TOL = 1e-8
import numpy as np
from scipy.spatial.distance import cdist

rng = np.random.default_rng(0)
N_LABELLED, N_QUERY, N_FEATURES, N_CLASSES, K = 400, 160, 24, 5, 15

centres = rng.normal(size=(N_CLASSES, N_FEATURES)) * 2.0
labels = rng.integers(0, N_CLASSES, N_LABELLED)
labelled = centres[labels] + rng.normal(size=(N_LABELLED, N_FEATURES)) * 3.0
query = centres[rng.integers(0, N_CLASSES, N_QUERY)] + rng.normal(size=(N_QUERY, N_FEATURES)) * 3.0
weights = rng.gamma(2.0, 0.5, N_FEATURES)


def weighted_euclidean(u, v):
    return np.sqrt(np.sum(weights * (u - v) ** 2))


def knn_scores(q, x, y):
    d = cdist(q, x, metric=weighted_euclidean)
    nearest = np.argsort(d, axis=1)[:, :K]
    w = 1.0 / (np.take_along_axis(d, nearest, axis=1) + 1e-9)
    scores = np.zeros((q.shape[0], N_CLASSES))
    np.add.at(scores, (np.arange(q.shape[0])[:, None], y[nearest]), w)
    return scores / scores.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    result = knn_scores(query, labelled, labels)
