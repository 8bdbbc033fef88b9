"""Contrastive image-text (CLIP-style) training computes the text-to-image logits with a second matmul
`txt @ img.T` instead of transposing the image-to-text logits it already has, doubling the similarity matmul
and its backward (code review of a symmetric InfoNCE loss)."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)
BATCH, IMG_DIM, TXT_DIM, EMB, STEPS = 384, 48, 32, 384, 70
img_proj = torch.nn.Linear(IMG_DIM, EMB)
txt_proj = torch.nn.Linear(TXT_DIM, EMB)
opt = torch.optim.SGD(list(img_proj.parameters()) + list(txt_proj.parameters()), lr=0.5)
imgs = torch.randn(STEPS, BATCH, IMG_DIM)
txts = torch.randn(STEPS, BATCH, TXT_DIM)
targets = torch.arange(BATCH)
SCALE = 10.0


def clip_loss(img, txt):
    logits_per_image = SCALE * img @ txt.t()
    logits_per_text = SCALE * txt @ img.t()
    return 0.5 * (F.cross_entropy(logits_per_image, targets) + F.cross_entropy(logits_per_text, targets))


def main():
    losses = []
    for s in range(STEPS):
        opt.zero_grad()
        img = F.normalize(img_proj(imgs[s]), dim=1)
        txt = F.normalize(txt_proj(txts[s]), dim=1)
        loss = clip_loss(img, txt)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


if __name__ == "__main__":
    result = main()
