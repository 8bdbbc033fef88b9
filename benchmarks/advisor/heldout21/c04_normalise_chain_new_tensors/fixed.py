import torch

torch.manual_seed(0)
BATCH, N_BATCHES = 80, 6
images = [torch.randint(0, 256, (BATCH, 3, 224, 224), dtype=torch.uint8) for _ in range(3)]
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
SCALE = 1.0 / (255.0 * STD)
SHIFT = -MEAN / STD


def preprocess(batch, out):
    out.copy_(batch)
    out.mul_(SCALE).add_(SHIFT)
    return out


def main():
    feats = []
    buf = torch.empty(BATCH, 3, 224, 224)
    for i in range(N_BATCHES):
        x = preprocess(images[i % len(images)], buf)
        feats.append(x.amax(dim=(2, 3)) + x[:, :, ::8, ::8].mean(dim=(2, 3)))
    return torch.cat(feats)


if __name__ == "__main__":
    result = main()
