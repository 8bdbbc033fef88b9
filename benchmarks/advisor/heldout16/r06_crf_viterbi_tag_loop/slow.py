"""Viterbi decoding of a linear-chain CRF tagger over a batch of sentences, with the max over previous tags
computed in a Python loop over every current tag (a few tiny tensor ops per tag per time step).
Modelled on forum/GitHub threads like "BiLSTM-CRF decoding is very slow" in NER tutorials."""
PLANTED = ["host_bound", "launch_overhead"]
TOL = 1e-5
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
        new_score = torch.empty(TAGS)
        pointers = torch.empty(TAGS, dtype=torch.long)
        for j in range(TAGS):
            best, idx = (score + transitions[:, j]).max(dim=0)
            new_score[j] = best + em[t, j]
            pointers[j] = idx
        score = new_score
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
