import torch

torch.manual_seed(0)
layers = []
for _ in range(12):
    layers += [torch.nn.Linear(256, 256), torch.nn.LayerNorm(256), torch.nn.GELU()]
model = torch.nn.Sequential(*layers, torch.nn.Linear(256, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(32, 256)
y = torch.randn(32, 1)


def main():
    best_loss = float("inf")
    # the snapshot: one preallocated copy of the weights, refreshed in place
    best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    for step in range(80):
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if loss.item() < best_loss:
            best_loss = loss.item()
            with torch.no_grad():
                for k, v in model.state_dict().items():
                    best_state[k].copy_(v)
    model.load_state_dict(best_state)
    with torch.no_grad():
        return model(x)


if __name__ == "__main__":
    result = main()
