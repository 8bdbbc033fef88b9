"""Next-token accuracy of a bigram language model computed greedily as torch.max(softmax(logits / temperature), 1): scaling and softmax are monotonic, so those passes over the whole vocabulary (and their temporaries) are wasted work."""
PLANTED = ("redundant", "hotspot")
import torch

torch.manual_seed(0)
V = 3000
model = torch.nn.Embedding(V, V)                 # bigram LM: logits for the next token = table[current token]
temperature = 0.8
stream = torch.randint(0, V, (120 * 512 + 1,))


def main():
    correct = 0
    first = None
    with torch.no_grad():
        for s in range(0, stream.numel() - 1, 512):
            x, y = stream[s:s + 512], stream[s + 1:s + 513]
            logits = model(x)
            probs = torch.softmax(logits / temperature, dim=1)
            _, pred = torch.max(probs, 1)                  # the confidence is never used
            correct += int((pred == y).sum())
            if first is None:
                first = pred
    return torch.cat([first, torch.tensor([correct])]).double()


if __name__ == "__main__":
    result = main()
