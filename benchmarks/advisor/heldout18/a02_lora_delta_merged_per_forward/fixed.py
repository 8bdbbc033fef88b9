import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, LAYERS, RANK, TOKENS, REQUESTS = 512, 4, 16, 4, 700


class LoRALinear(nn.Module):
    def __init__(self, d_in, d_out, r=RANK, alpha=32.0):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.base.weight.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, d_in) * 0.01)
        self.lora_B = nn.Parameter(torch.randn(d_out, r) * 0.01)
        self.scaling = alpha / r
        self.merged = None

    @torch.no_grad()
    def merge(self):
        self.merged = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)

    def forward(self, x):
        if self.merged is not None:
            return F.linear(x, self.merged, self.base.bias)
        weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, weight, self.base.bias)


class AdaptedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(LoRALinear(D, D) for _ in range(LAYERS))

    def forward(self, x):
        for layer in self.layers:
            x = F.gelu(layer(x))
        return x


def serve():
    model = AdaptedMLP().eval()
    for layer in model.layers:
        layer.merge()
    batch = torch.randn(TOKENS, D)
    total = torch.zeros(TOKENS, D)
    with torch.no_grad():
        for _ in range(REQUESTS):
            total += model(batch)
    return total


if __name__ == "__main__":
    result = serve()
