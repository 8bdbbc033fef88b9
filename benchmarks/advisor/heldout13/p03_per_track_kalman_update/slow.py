"""Multi-object tracker: every frame, each track's constant-velocity Kalman filter is predicted and then
updated with its associated position measurement (modelled on a PyTorch forum thread from someone porting
a SORT-style tracker from NumPy to torch and finding it slower than before)."""
PLANTED = ("launch_overhead", "host_bound", "utilization")
TOL = 1e-4
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


class Track:
    def __init__(self, pos):
        self.x = torch.cat([pos, torch.zeros(2)])
        self.P = torch.eye(4) * 10.0

    def predict(self):
        self.x = F @ self.x
        self.P = F @ self.P @ F.T + Q

    def update(self, z):
        y = z - H @ self.x
        S = H @ self.P @ H.T + R
        K = self.P @ H.T @ torch.linalg.inv(S)
        self.x = self.x + K @ y
        self.P = (torch.eye(4) - K @ H) @ self.P


def run():
    tracks = [Track(p) for p in true_pos]
    for k in range(N_FRAMES):
        for t, z in zip(tracks, measurements[k]):
            t.predict()
            t.update(z)
    return torch.stack([t.x for t in tracks])


if __name__ == "__main__":
    result = run()
