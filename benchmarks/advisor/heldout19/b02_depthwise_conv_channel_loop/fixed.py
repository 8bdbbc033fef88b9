import torch
import torch.nn.functional as F

torch.manual_seed(0)
C = 48
BLOCKS = 3
dw_weights = [torch.randn(C, 1, 3, 3) * 0.3 for _ in range(BLOCKS)]
pw_weights = [torch.randn(C, C, 1, 1) / C ** 0.5 for _ in range(BLOCKS)]
batches = [torch.randn(4, C, 20, 20) for _ in range(8)]


def depthwise(x, w):
    return F.conv2d(x, w, padding=1, groups=x.shape[1])


def forward(x):
    for dw, pw in zip(dw_weights, pw_weights):
        x = F.relu(F.conv2d(F.relu(depthwise(x, dw)), pw)) + x
    return x.mean(dim=(2, 3))


def main():
    outs = []
    with torch.no_grad():
        for _ in range(5):
            for x in batches:
                outs.append(forward(x))
    return torch.stack(outs)


if __name__ == "__main__":
    result = main()
