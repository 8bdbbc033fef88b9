"""A hand-written Adam update (copied from a tutorial to add a tweak) looping over the parameters in
Python with out-of-place tensor arithmetic, about a dozen small ops per parameter per step, on a deep
and narrow MLP with many small parameter tensors (PyTorch forums: "my custom optimizer is much slower
than torch.optim.Adam"). The fix: ``torch.optim.Adam(..., fused=True)``, one fused multi-tensor
update per step."""
PLANTED = ("host_bound", "launch_overhead", "fusion")
TOL = 1e-3
import torch

torch.manual_seed(0)
DEPTH, WIDTH, STEPS, LR = 30, 48, 90, 1e-3
layers = []
for _ in range(DEPTH):
    layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()]
model = torch.nn.Sequential(torch.nn.Linear(16, WIDTH), *layers, torch.nn.Linear(WIDTH, 1))
X = torch.randn(512, 16)
y = (X[:, :4].sum(1, keepdim=True)).sin()


class HandAdam:
    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        self.params = list(params)
        self.lr, self.b1, self.b2, self.eps = lr, betas[0], betas[1], eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        self.t += 1
        for i, p in enumerate(self.params):
            g = p.grad
            self.m[i] = self.b1 * self.m[i] + (1 - self.b1) * g
            self.v[i] = self.b2 * self.v[i] + (1 - self.b2) * (g * g)
            m_hat = self.m[i] / (1 - self.b1 ** self.t)
            v_hat = self.v[i] / (1 - self.b2 ** self.t)
            p.copy_(p - self.lr * m_hat / (v_hat.sqrt() + self.eps))


def main():
    opt = HandAdam(model.parameters(), lr=LR)
    losses = []
    for step in range(STEPS):
        idx = torch.arange(step * 64, step * 64 + 64) % X.shape[0]
        loss = torch.nn.functional.mse_loss(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses + [p.detach().sum() for p in model.parameters()][-6:])


if __name__ == "__main__":
    result = main()
