import torch

torch.manual_seed(0)
N, D_IN, HIDDEN, CLASSES = 4096, 32, 96, 10
STEPS, BATCH, LR, DAMPING, DECAY, INV_EVERY = 40, 256, 0.05, 0.03, 0.95, 10

X = torch.randn(N, D_IN)
teacher = torch.randn(D_IN, CLASSES)
y = (X @ teacher + 0.5 * torch.randn(N, CLASSES)).argmax(1)

W1 = (0.2 * torch.randn(HIDDEN, D_IN)).requires_grad_()
W2 = (0.2 * torch.randn(CLASSES, HIDDEN)).requires_grad_()
layers = [W1, W2]


def precondition(grad, g_inv, a_inv):
    return g_inv @ grad @ a_inv


def main():
    gen = torch.Generator().manual_seed(1)
    A = [torch.eye(D_IN), torch.eye(HIDDEN)]
    G = [torch.eye(HIDDEN), torch.eye(CLASSES)]
    A_inv, G_inv = list(A), list(G)
    for step in range(STEPS):
        idx = torch.randint(0, N, (BATCH,), generator=gen)
        a0 = X[idx]
        s1 = a0 @ W1.T
        a1 = torch.tanh(s1)
        s2 = a1 @ W2.T
        loss = torch.nn.functional.cross_entropy(s2, y[idx])
        g1, g2, gw1, gw2 = torch.autograd.grad(loss, [s1, s2, W1, W2])
        with torch.no_grad():
            for i, (a, g) in enumerate(((a0, g1), (a1.detach(), g2))):
                A[i] = DECAY * A[i] + (1 - DECAY) * (a.T @ a) / BATCH
                G[i] = DECAY * G[i] + (1 - DECAY) * (g.T @ g) * BATCH
            if step % INV_EVERY == 0:
                A_inv = [torch.linalg.inv(a + DAMPING ** 0.5 * torch.eye(a.shape[0])) for a in A]
                G_inv = [torch.linalg.inv(g + DAMPING ** 0.5 * torch.eye(g.shape[0])) for g in G]
            for w, gw, ai, gi in zip(layers, (gw1, gw2), A_inv, G_inv):
                w -= LR * precondition(gw, gi, ai)
    with torch.no_grad():
        logits = torch.tanh(X @ W1.T) @ W2.T
        final = torch.nn.functional.cross_entropy(logits, y)
    return torch.cat([final.reshape(1), W2.detach().reshape(-1)])


if __name__ == "__main__":
    result = main()
