import torch
import torch.nn.functional as F

torch.manual_seed(0)
V, D, B, L = 8000, 64, 16, 64
TOKENS = torch.randint(0, V, (8, B, L))
TARGETS = torch.randint(0, 5, (8, B))


class BagClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Parameter(torch.randn(V, D) * 0.1)
        self.encoder = torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(D, nhead=4, dim_feedforward=512, dropout=0.0, batch_first=True),
            num_layers=2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(D, 5)

    def forward(self, tokens):
        h = F.embedding(tokens, self.emb)              # (B, L, D)
        h = self.encoder(h)
        return self.head(h.mean(1))


def main():
    model = BagClassifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    log = []
    for step in range(TOKENS.shape[0]):
        loss = F.cross_entropy(model(TOKENS[step]), TARGETS[step])
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(loss.detach())
    return torch.cat([torch.stack(log), model.emb[:50].detach().flatten()])


if __name__ == "__main__":
    result = main()
