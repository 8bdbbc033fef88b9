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

    def forward(self, x, cache):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        q, k, v = (t.view(B, T, HEADS, D // HEADS).transpose(1, 2) for t in (q, k, v))
        first = "k" not in cache
        if not first:
            k = torch.cat([cache["k"], k], dim=2)
            v = torch.cat([cache["v"], v], dim=2)
        cache["k"], cache["v"] = k, v
        att = F.scaled_dot_product_attention(q, k, v, is_causal=first)
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

    def forward(self, ids, start, caches):
        x = self.tok(ids) + self.pos(torch.arange(start, start + ids.shape[1]))
        for block, cache in zip(self.blocks, caches):
            x = block(x, cache)
        return self.head(self.ln_f(x))


model = TinyGPT().eval()
prompt = torch.randint(0, VOCAB, (8, 16))


@torch.no_grad()
def generate(ids, new_tokens):
    step_logits = []
    caches = [{} for _ in range(LAYERS)]
    step_input, start = ids, 0
    for _ in range(new_tokens):
        logits = model(step_input, start, caches)[:, -1]
        step_logits.append(logits)
        start += step_input.shape[1]
        step_input = logits.argmax(-1, keepdim=True)
        ids = torch.cat([ids, step_input], dim=1)
    return ids, torch.stack(step_logits, dim=1)


def main():
    ids, logits = generate(prompt, 96)
    return torch.cat([ids.double(), logits.double().flatten(1)[:, ::97]], dim=1)


if __name__ == "__main__":
    result = main()
