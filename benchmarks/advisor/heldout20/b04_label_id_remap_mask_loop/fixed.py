import torch

torch.manual_seed(0)
IGNORE = 255
ID_TO_TRAIN = {i: (i - 7 if 7 <= i < 26 else IGNORE) for i in range(34)}
crops = torch.randint(0, 34, (120, 256, 256))
LUT = torch.full((256,), IGNORE, dtype=torch.long)
for _k, _v in ID_TO_TRAIN.items():
    LUT[_k] = _v


def remap(lab):
    return LUT[lab]


def main():
    counts = torch.zeros(20)
    for lab in crops:
        train = remap(lab)
        train = torch.where(train == IGNORE, 19, train)
        counts += torch.bincount(train.flatten(), minlength=20).float()
    return counts / counts.sum()


if __name__ == "__main__":
    result = main()
