"""A transformer block built on nn.MultiheadAttention called with its default need_weights=True while the
returned attention weights are discarded (`out, _ = self.attn(x, x, x)`): the module then takes the
unfused path that materialises and head-averages the attention matrices instead of the fused
scaled-dot-product kernel (PyTorch forums: "MultiheadAttention slower than expected in training")."""
PLANTED = ("redundant", "fusion", "memory")
TOL = 1e-3
import torch
from torch import nn

torch.manual_seed(0)

D_MODEL = 128
N_HEADS = 4
SEQ_LEN = 768
N_CLASSES = 5


class EncoderBlock(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h)
        x = x + a
        return x + self.mlp(self.ln2(x))


class SequenceClassifier(nn.Module):
    def __init__(self, n_features, d_model=D_MODEL, n_heads=N_HEADS, n_layers=2, n_classes=N_CLASSES):
        super().__init__()
        self.embed = nn.Linear(n_features, d_model)
        self.blocks = nn.ModuleList([EncoderBlock(d_model, n_heads) for _ in range(n_layers)])
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h.mean(dim=1))


def make_batches(n_batches=3, batch_size=4, n_features=16):
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, SEQ_LEN, n_features)
        y = torch.randint(0, N_CLASSES, (batch_size,))
        batches.append((x, y))
    return batches


def train(model, batches):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


def main():
    batches = make_batches()
    model = SequenceClassifier(n_features=16)
    losses = train(model, batches)
    with torch.no_grad():
        probe = model(batches[0][0]).flatten()
    return torch.cat([losses, probe])


if __name__ == "__main__":
    result = main()
