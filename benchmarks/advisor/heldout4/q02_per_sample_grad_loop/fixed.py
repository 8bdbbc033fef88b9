import torch
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
N, D, H = 1_200, 32, 64
model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.Tanh(), torch.nn.Linear(H, H), torch.nn.Tanh(),
                            torch.nn.Linear(H, 1))
X = torch.randn(N, D)
y = torch.randn(N, 1)


def loss_one(params, x, t):
    out = functional_call(model, params, (x.unsqueeze(0),))
    return torch.nn.functional.mse_loss(out, t.unsqueeze(0))


def main():
    params = {k: v.detach() for k, v in model.named_parameters()}
    grads = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, X, y)
    sq = sum(g.pow(2).flatten(1).sum(1) for g in grads.values())
    return sq.sqrt()


if __name__ == "__main__":
    result = main()
