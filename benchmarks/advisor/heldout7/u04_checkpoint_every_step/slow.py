"""A training loop that writes a full checkpoint (model and optimizer state) to disk after every step,
"to be safe", while only the last one is ever kept (code review: "checkpoint every N steps, not every
step; torch.save of the Adam state is not free")."""
PLANTED = ("redundant", "host_bound", "idle")
TOL = 1e-5
import os
import tempfile

import torch

torch.manual_seed(0)
X = torch.randn(8192, 512)
W_true = torch.randn(512, 10)
Y = (X @ W_true).argmax(1)
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
CKPT = os.path.join(tempfile.mkdtemp(), "last.pt")
STEPS, SAVE_EVERY = 30, 1


def main():
    for step in range(STEPS):
        idx = torch.arange(step * 1024, step * 1024 + 1024) % X.shape[0]
        loss = torch.nn.functional.cross_entropy(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % SAVE_EVERY == 0 or step + 1 == STEPS:
            torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict()}, CKPT)
    state = torch.load(CKPT)
    os.remove(CKPT)
    os.rmdir(os.path.dirname(CKPT))
    model.load_state_dict(state["model"])
    with torch.no_grad():
        return model(X[:256])


if __name__ == "__main__":
    result = main()
