import torch

N_SENSORS = 4
N_SAMPLES = 2400
N_CHANNELS = 64
RANK = 8


def load_sensor(i):
    g = torch.Generator().manual_seed(100 + i)
    latent = torch.randn(N_SAMPLES, RANK, generator=g)
    mixing = torch.randn(RANK, N_CHANNELS, generator=g)
    noise = 0.1 * torch.randn(N_SAMPLES, N_CHANNELS, generator=g)
    return latent @ mixing + noise


def pca_denoise(x, rank):
    mean = x.mean(dim=0, keepdim=True)
    centred = x - mean
    U, S, Vh = torch.linalg.svd(centred, full_matrices=False)
    return (U[:, :rank] * S[:rank]) @ Vh[:rank] + mean


def main():
    residuals = []
    for i in range(N_SENSORS):
        x = load_sensor(i)
        clean = pca_denoise(x, RANK)
        residuals.append((x - clean).pow(2).mean(dim=1))
    return torch.cat(residuals)


if __name__ == "__main__":
    result = main()
