import torch
import torch.nn.functional as F

torch.manual_seed(0)
NQ, NG, D = 250, 2000, 128
gallery = torch.randn(NG, D)
gal_labels = torch.randint(0, 200, (NG,))
q_idx = torch.randint(0, NG, (NQ,))
queries = gallery[q_idx] + 0.8 * torch.randn(NQ, D)


def similarity(q, g):
    return F.normalize(q, dim=1) @ F.normalize(g, dim=1).T


def main():
    with torch.no_grad():
        sim = similarity(queries, gallery)
        top = sim.topk(5, dim=1)
        hit = (gal_labels[top.indices] == gal_labels[q_idx][:, None]).any(dim=1).float()
        return torch.stack([hit.mean(), top.values.mean()])


if __name__ == "__main__":
    result = main()
