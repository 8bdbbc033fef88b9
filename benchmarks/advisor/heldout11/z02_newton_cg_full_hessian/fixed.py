import torch

torch.manual_seed(0)
N, D = 3000, 250
NEWTON_STEPS = 5
LAM = 1e-2
X = torch.randn(N, D, dtype=torch.float64)
w_true = torch.randn(D, dtype=torch.float64) * 0.3
y = (torch.rand(N, dtype=torch.float64) < torch.sigmoid(X @ w_true)).double()


def loss_fn(w):
    return torch.nn.functional.binary_cross_entropy_with_logits(X @ w, y) + 0.5 * LAM * (w * w).sum()


def conjugate_gradient(matvec, b, iters=30, tol=1e-10):
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rs = r @ r
    for _ in range(iters):
        ap = matvec(p)
        alpha = rs / (p @ ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = r @ r
        if rs_new.sqrt() < tol:
            break
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def main():
    w = torch.zeros(D, dtype=torch.float64)
    history = []
    for _ in range(NEWTON_STEPS):
        wr = w.clone().requires_grad_(True)
        loss = loss_fn(wr)
        g = torch.autograd.grad(loss, wr, create_graph=True)[0]

        def hvp(v):  # Hessian-vector product by double backward: never forms the D x D Hessian
            return torch.autograd.grad(g, wr, grad_outputs=v, retain_graph=True)[0]

        step = conjugate_gradient(hvp, -g.detach())
        w = w + step
        history.append(loss.detach())
    return torch.cat([w, torch.stack(history)])


if __name__ == "__main__":
    result = main()
