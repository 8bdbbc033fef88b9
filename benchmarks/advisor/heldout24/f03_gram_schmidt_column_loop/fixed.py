import torch

torch.manual_seed(0)
A = torch.randn(1200, 380, dtype=torch.float64)


def main():
    Q, R = torch.linalg.qr(A)                       # Householder QR in LAPACK
    signs = torch.sign(torch.diagonal(R))           # Gram-Schmidt's convention: positive diagonal of R
    return Q * signs


if __name__ == "__main__":
    result = main()
