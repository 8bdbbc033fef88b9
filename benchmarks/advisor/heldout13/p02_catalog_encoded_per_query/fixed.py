"""Offline evaluation of a two-tower retrieval model: a query encoder and an item encoder (small MLPs)
score every query batch against the whole item catalogue and keep the top-10 items."""
import torch

torch.manual_seed(0)
N_ITEMS, N_QUERIES, DIM_IN, DIM_EMB = 8_000, 1_024, 128, 64
QUERY_BATCH = 64


def tower():
    return torch.nn.Sequential(
        torch.nn.Linear(DIM_IN, 256), torch.nn.GELU(), torch.nn.Linear(256, 256), torch.nn.GELU(),
        torch.nn.Linear(256, DIM_EMB),
    )


query_tower, item_tower = tower().eval(), tower().eval()
item_features = torch.randn(N_ITEMS, DIM_IN)
query_features = torch.randn(N_QUERIES, DIM_IN)


def encode(model, x):
    return torch.nn.functional.normalize(model(x), dim=-1)


@torch.no_grad()
def evaluate():
    top_scores = []
    items = encode(item_tower, item_features)
    for start in range(0, N_QUERIES, QUERY_BATCH):
        q = encode(query_tower, query_features[start:start + QUERY_BATCH])
        scores = q @ items.T
        top_scores.append(scores.topk(10, dim=1).values)
    return torch.cat(top_scores)


if __name__ == "__main__":
    result = evaluate()
