"""Newton-CG for an L2-regularised logistic regression that builds the full Hessian with
``torch.autograd.functional.hessian`` at every Newton step, only to multiply it by the conjugate-gradient
directions (forums: "autograd.functional.hessian is very slow for my Newton method"; the usual answer is a
Hessian-vector product by double backward)."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-6
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
        g = torch.autograd.grad(loss, wr)[0]
        hess = torch.autograd.functional.hessian(loss_fn, w)
        step = conjugate_gradient(lambda v: hess @ v, -g)
        w = w + step
        history.append(loss.detach())
    return torch.cat([w, torch.stack(history)])


if __name__ == "__main__":
    result = main()
