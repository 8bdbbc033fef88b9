"""A training loop that logs the batch's predictions, the loss and a gradient at DEBUG level with
f-strings (code review: "your debug lines cost time even when DEBUG is off"). The logger sits at INFO, so
nothing is printed, but each f-string is built before ``logger.debug`` is called, and building it formats
tensors (``Tensor.__repr__``) every step. The fix: pass the values as ``%s`` arguments (formatted only
when the record is emitted) or guard the line with ``logger.isEnabledFor(logging.DEBUG)``."""
PLANTED = ("redundant", "host_bound")
TOL = 1e-4
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
logger = logging.getLogger("trainer")
torch.manual_seed(0)

N_IN, HIDDEN, N_CLASSES, BATCH, STEPS = 64, 256, 10, 128, 700

model = nn.Sequential(nn.Linear(N_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, N_CLASSES))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(STEPS, BATCH, N_IN)
Y = torch.randint(0, N_CLASSES, (STEPS, BATCH))


def train():
    losses = []
    for step in range(STEPS):
        logits = model(X[step])
        loss = F.cross_entropy(logits, Y[step])
        opt.zero_grad()
        loss.backward()
        logger.debug(f"step {step} loss={loss} first logits={logits[:4]}")
        logger.debug(f"step {step} last-layer grad={model[4].weight.grad}")
        opt.step()
        losses.append(loss.item())
        if step % 200 == 0:
            logger.info("step %d loss %.4f", step, losses[-1])
    return torch.tensor(losses)


if __name__ == "__main__":
    result = train()
