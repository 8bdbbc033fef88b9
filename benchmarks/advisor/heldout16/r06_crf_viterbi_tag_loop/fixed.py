import torch

torch.manual_seed(0)
SENTENCES, LENGTH, TAGS = 64, 40, 17

transitions = torch.randn(TAGS, TAGS)
start = torch.randn(TAGS)
end = torch.randn(TAGS)
emissions = torch.randn(SENTENCES, LENGTH, TAGS) * 2.0


def viterbi(em):
    score = start + em[0]
    backpointers = []
    for t in range(1, em.shape[0]):
        best, pointers = (score.unsqueeze(1) + transitions).max(dim=0)
        score = best + em[t]
        backpointers.append(pointers)
    score = score + end
    best_score, last = score.max(dim=0)
    path = [last.item()]
    for pointers in reversed(backpointers):
        path.append(pointers[path[-1]].item())
    path.reverse()
    return best_score, path


def main():
    out = []
    with torch.no_grad():
        for s in range(SENTENCES):
            best_score, path = viterbi(emissions[s])
            out.append(best_score.item())
            out.extend(float(p) for p in path)
    return torch.tensor(out, dtype=torch.float64)


if __name__ == "__main__":
    result = main()
