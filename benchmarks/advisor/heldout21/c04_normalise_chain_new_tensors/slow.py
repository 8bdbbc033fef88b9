"""Image batches (uint8, NCHW) are normalised by a chain of out-of-place ops before a cheap pooled feature step.
Planted: float(), /255, -mean, /std each allocate and write a fresh 48 MB tensor per batch (memory traffic,
page faults) where one reused buffer and one fused in-place affine would do. Modelled on "preprocessing is slower than my model" threads."""
PLANTED = ("memory", "fusion")
TOL = 1e-4
import torch

torch.manual_seed(0)
BATCH, N_BATCHES = 80, 6
images = [torch.randint(0, 256, (BATCH, 3, 224, 224), dtype=torch.uint8) for _ in range(3)]
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def preprocess(batch):
    x = batch.float()
    x = x / 255.0
    x = x - MEAN
    x = x / STD
    return x


def main():
    feats = []
    for i in range(N_BATCHES):
        x = preprocess(images[i % len(images)])
        feats.append(x.amax(dim=(2, 3)) + x[:, :, ::8, ::8].mean(dim=(2, 3)))
    return torch.cat(feats)


if __name__ == "__main__":
    result = main()
