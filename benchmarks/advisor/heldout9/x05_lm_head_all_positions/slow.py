"""Next-token scoring with a small causal language model that projects every position of every prompt
onto the whole vocabulary and then keeps only the last position's logits (GitHub issue: "compute logits
only for the last token when generating / scoring"); the vocabulary projection of the other positions is
thrown away."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-3
import torch
from torch import nn

torch.manual_seed(0)

VOCAB = 16000
D_MODEL = 192
N_LAYERS = 2
N_HEADS = 6
SEQ_LEN = 96


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=VOCAB, d_model=D_MODEL, n_layers=N_LAYERS, n_heads=N_HEADS, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        h = self.tok(ids) + self.pos(torch.arange(t))
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.blocks(h, mask=mask, is_causal=True)
        return self.lm_head(self.norm(h))


@torch.no_grad()
def next_token_logprobs(model, prompts):
    logits = model(prompts)
    return torch.log_softmax(logits[:, -1, :], dim=-1)


def score_candidates(model, prompts, candidates, batch_size=16):
    scores = []
    for i in range(0, prompts.shape[0], batch_size):
        logp = next_token_logprobs(model, prompts[i:i + batch_size])
        scores.append(logp.gather(1, candidates[i:i + batch_size]))
    return torch.cat(scores)


def main():
    model = TinyCausalLM().eval()
    prompts = torch.randint(0, VOCAB, (96, SEQ_LEN))
    candidates = torch.randint(0, VOCAB, (96, 5))
    return score_candidates(model, prompts, candidates)


if __name__ == "__main__":
    result = main()
