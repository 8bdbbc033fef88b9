"""Greedy decoding from a small GPT-style model that re-runs the whole prefix through every layer for
each new token instead of caching the keys and values of the tokens already seen (GitHub issue: "generation
gets slower with every token, use_cache was off in my own generate loop")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-3
import torch
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, MAX_LEN = 2000, 128, 4, 2, 160


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(D)
        self.qkv = torch.nn.Linear(D, 3 * D)
        self.proj = torch.nn.Linear(D, D)
        self.ln2 = torch.nn.LayerNorm(D)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(D, 4 * D), torch.nn.GELU(), torch.nn.Linear(4 * D, D))

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        q, k, v = (t.view(B, T, HEADS, D // HEADS).transpose(1, 2) for t in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


class TinyGPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, D)
        self.pos = torch.nn.Embedding(MAX_LEN, D)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = torch.nn.LayerNorm(D)
        self.head = torch.nn.Linear(D, VOCAB)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


model = TinyGPT().eval()
prompt = torch.randint(0, VOCAB, (8, 16))


@torch.no_grad()
def generate(ids, new_tokens):
    step_logits = []
    for _ in range(new_tokens):
        logits = model(ids)[:, -1]
        step_logits.append(logits)
        ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
    return ids, torch.stack(step_logits, dim=1)


def main():
    ids, logits = generate(prompt, 96)
    return torch.cat([ids.double(), logits.double().flatten(1)[:, ::97]], dim=1)


if __name__ == "__main__":
    result = main()
