import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.ReLU(),
    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
    nn.Conv2d(32, 64, 3, padding=1, stride=2), nn.ReLU(),
)
for p in net.parameters():
    p.requires_grad_(False)
STYLE_LAYERS = (1, 3, 5, 7)
CONTENT_LAYER = 5
style_img = torch.rand(1, 3, 64, 64)
content_img = torch.rand(1, 3, 64, 64)


def features(x):
    out = {}
    for i, layer in enumerate(net):
        x = layer(x)
        out[i] = x
    return out


def gram(f):
    b, c, h, w = f.shape
    f = f.reshape(c, h * w)
    return f @ f.t() / (c * h * w)


def main():
    with torch.no_grad():
        style_feats = features(style_img)
        style_targets = [gram(style_feats[i]) for i in STYLE_LAYERS]
        content_target = features(content_img)[CONTENT_LAYER]
    img = content_img.clone().requires_grad_(True)
    opt = torch.optim.Adam([img], lr=0.02)
    for _ in range(75):
        feats = features(img)
        loss = 10.0 * ((feats[CONTENT_LAYER] - content_target) ** 2).mean()
        for i, t in zip(STYLE_LAYERS, style_targets):
            loss = loss + 1e3 * ((gram(feats[i]) - t) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return img.detach()


if __name__ == "__main__":
    result = main()
