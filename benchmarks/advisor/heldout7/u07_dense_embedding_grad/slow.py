"""Matrix-factorisation recommender trained with plain SGD on large user and item embedding tables with
dense gradients: every step materialises and applies a gradient the size of both tables although a batch
touches a few thousand rows (StackOverflow question: "nn.Embedding training is slow with a big vocabulary",
answer: sparse=True)."""
PLANTED = ("memory", "redundant", "hotspot")
TOL = 1e-4
import torch

torch.manual_seed(0)
N_USERS, N_ITEMS, DIM = 300_000, 100_000, 32
users = torch.randint(0, N_USERS, (30 * 512,))
items = torch.randint(0, N_ITEMS, (30 * 512,))
ratings = torch.rand(30 * 512) * 4 + 1


class MF(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.user = torch.nn.Embedding(N_USERS, DIM)
        self.item = torch.nn.Embedding(N_ITEMS, DIM)
        self.user_bias = torch.nn.Embedding(N_USERS, 1)
        self.item_bias = torch.nn.Embedding(N_ITEMS, 1)
        for emb in (self.user, self.item):
            torch.nn.init.normal_(emb.weight, std=0.1)

    def forward(self, u, i):
        dot = (self.user(u) * self.item(i)).sum(1)
        return dot + self.user_bias(u).squeeze(1) + self.item_bias(i).squeeze(1) + 3.0


model = MF()
opt = torch.optim.SGD(model.parameters(), lr=0.5)


def main():
    losses = []
    for step in range(30):
        sl = slice(step * 512, (step + 1) * 512)
        loss = torch.nn.functional.mse_loss(model(users[sl], items[sl]), ratings[sl])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return torch.cat([torch.tensor(losses), model.user.weight[:200].flatten(), model.item.weight[:200].flatten()])


if __name__ == "__main__":
    result = main()
