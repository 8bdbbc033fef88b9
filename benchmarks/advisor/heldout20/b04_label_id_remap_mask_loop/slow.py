"""Segmentation label preprocessing that maps raw dataset ids to train ids with one boolean-mask pass per id
(`out[lab == k] = v` over 34 ids per crop) instead of a single lookup-table index, then counts class pixels.
Modelled on Cityscapes-style issues/threads: "label id -> trainId conversion is the slowest part of my loader"."""
PLANTED = ("hotspot", "memory", "input_pipeline")
TOL = 1e-6
import torch

torch.manual_seed(0)
IGNORE = 255
ID_TO_TRAIN = {i: (i - 7 if 7 <= i < 26 else IGNORE) for i in range(34)}
crops = torch.randint(0, 34, (120, 256, 256))


def remap(lab):
    out = torch.full_like(lab, IGNORE)
    for k, v in ID_TO_TRAIN.items():
        out[lab == k] = v
    return out


def main():
    counts = torch.zeros(20)
    for lab in crops:
        train = remap(lab)
        train = torch.where(train == IGNORE, 19, train)
        counts += torch.bincount(train.flatten(), minlength=20).float()
    return counts / counts.sum()


if __name__ == "__main__":
    result = main()
