import torch
import torch.nn as nn

torch.manual_seed(0)
N, IN_DIM, WIDTH, DEPTH = 640, 64, 256, 6


def centre(K):
    return K - K.mean(dim=0, keepdim=True) - K.mean(dim=1, keepdim=True) + K.mean()


def hsic(Kc, Lc):
    n = Kc.shape[0]
    return (Kc * Lc).sum() / (n - 1) ** 2


def linear_cka(X, Y):
    Kc, Lc = centre(X @ X.T), centre(Y @ Y.T)
    return hsic(Kc, Lc) / torch.sqrt(hsic(Kc, Kc) * hsic(Lc, Lc))


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
