import torch

torch.manual_seed(0)
backbone = torch.nn.Sequential(
    torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(4),
    torch.nn.Flatten())
head = torch.nn.Linear(64 * 16, 10)
images = torch.randn(384, 3, 32, 32)
targets = torch.randint(0, 10, (384,))
mean = images.mean((0, 2, 3), keepdim=True)
std = images.std((0, 2, 3), keepdim=True)


def main():
    backbone.eval()
    backbone.requires_grad_(False)
    opt = torch.optim.SGD(head.parameters(), lr=0.01, momentum=0.9)
    total = torch.zeros(())
    for epoch in range(2):
        for i in range(0, images.shape[0], 64):
            x = (images[i:i + 64] - mean) / std
            if epoch == 1:
                x = x.flip(3)
            loss = torch.nn.functional.cross_entropy(head(backbone(x)), targets[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
    return torch.cat([total.reshape(1), head.weight.detach().sum(1)])


if __name__ == "__main__":
    result = main()
