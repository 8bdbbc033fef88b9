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
            pred = logits.argmax(dim=-1)           # temperature and softmax are monotonic: same argmax
            correct += int((pred == y).sum())
            if first is None:
                first = pred
    return torch.cat([first, torch.tensor([correct])]).double()


if __name__ == "__main__":
    result = main()
