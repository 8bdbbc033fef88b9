"""Multi-object tracker: every frame, each track's constant-velocity Kalman filter is predicted and then
updated with its associated position measurement."""
import torch

torch.manual_seed(0)
N_TRACKS, N_FRAMES, DT = 300, 12, 0.1

F = torch.tensor([[1.0, 0.0, DT, 0.0], [0.0, 1.0, 0.0, DT], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
H = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
Q = torch.diag(torch.tensor([1e-3, 1e-3, 1e-2, 1e-2]))
R = torch.eye(2) * 0.05

true_pos = torch.randn(N_TRACKS, 2) * 50.0
true_vel = torch.randn(N_TRACKS, 2)
measurements = torch.stack([
    true_pos + true_vel * DT * (k + 1) + 0.2 * torch.randn(N_TRACKS, 2) for k in range(N_FRAMES)
])


def run():
    # all tracks' states and covariances as batched tensors: (N, 4) and (N, 4, 4)
    x = torch.cat([true_pos, torch.zeros(N_TRACKS, 2)], dim=1)
    P = torch.eye(4).expand(N_TRACKS, 4, 4) * 10.0
    eye = torch.eye(4)
    for k in range(N_FRAMES):
        x = x @ F.T
        P = F @ P @ F.T + Q
        y = measurements[k] - x @ H.T
        S = H @ P @ H.T + R
        K = P @ H.T @ torch.linalg.inv(S)
        x = x + (K @ y.unsqueeze(-1)).squeeze(-1)
        P = (eye - K @ H) @ P
    return x


if __name__ == "__main__":
    result = run()
