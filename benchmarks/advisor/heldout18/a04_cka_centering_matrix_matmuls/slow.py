"""Compares the layer representations of a small network with linear CKA, computing each HSIC term as
trace(K @ H @ L @ H) with the explicit n x n centring matrix H, as in many copied CKA snippets (GitHub issue:
"CKA between all layer pairs takes forever"). Three O(n^3) matmuls per term, where centring K and L by mean
subtraction and summing K_c * L_c gives the same value in O(n^2)."""
PLANTED = ("hotspot",)
TOL = 1e-3
import torch
import torch.nn as nn

torch.manual_seed(0)
N, IN_DIM, WIDTH, DEPTH = 640, 64, 256, 6


def hsic(K, L):
    n = K.shape[0]
    H = torch.eye(n) - torch.full((n, n), 1.0 / n)
    return torch.trace(K @ H @ L @ H) / (n - 1) ** 2


def linear_cka(X, Y):
    K, L = X @ X.T, Y @ Y.T
    return hsic(K, L) / torch.sqrt(hsic(K, K) * hsic(L, L))


def layer_activations(model, x):
    acts = []
    for layer in model:
        x = layer(x)
        if isinstance(layer, nn.ReLU):
            acts.append(x)
    return acts


def cka_matrix():
    layers = []
    for i in range(DEPTH):
        layers += [nn.Linear(IN_DIM if i == 0 else WIDTH, WIDTH), nn.ReLU()]
    model = nn.Sequential(*layers).eval()
    with torch.no_grad():
        acts = layer_activations(model, torch.randn(N, IN_DIM))
        scores = torch.eye(DEPTH)
        for i in range(DEPTH):
            for j in range(i + 1, DEPTH):
                scores[i, j] = scores[j, i] = linear_cka(acts[i], acts[j])
    return scores


if __name__ == "__main__":
    result = cka_matrix()
