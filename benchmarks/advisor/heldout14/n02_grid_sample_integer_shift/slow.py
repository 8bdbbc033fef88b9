"""Random-translation augmentation for a small image classifier: every batch is shifted by a whole number of
pixels per image (up to 4, zero fill), done with ``F.affine_grid`` + ``F.grid_sample`` as in the spatial-
transformer tutorial, i.e. a bilinear resampling with a computed sampling grid where a padded slice copies the
same pixels; modelled on a PyTorch forum thread ("my augmentation is slower than the model")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import torch
import torch.nn.functional as F

torch.manual_seed(0)
N_IMG, B, MAX_SHIFT = 512, 128, 4
images = torch.rand(N_IMG, 3, 96, 96)
labels = torch.randint(0, 10, (N_IMG,))
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, 8, stride=8), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(4), torch.nn.Flatten(), torch.nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
gen = torch.Generator().manual_seed(1)


def random_shift(x: torch.Tensor, shifts: torch.Tensor) -> torch.Tensor:
    n, _, h, w = x.shape
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = 1.0
    theta[:, 1, 1] = 1.0
    theta[:, 0, 2] = -2.0 * shifts[:, 0].float() / w
    theta[:, 1, 2] = -2.0 * shifts[:, 1].float() / h
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def main():
    losses = []
    for epoch in range(2):
        for start in range(0, N_IMG, B):
            x, y = images[start:start + B], labels[start:start + B]
            shifts = torch.randint(-MAX_SHIFT, MAX_SHIFT + 1, (x.shape[0], 2), generator=gen)
            x = random_shift(x, shifts)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return torch.tensor(losses)


if __name__ == "__main__":
    result = main()
