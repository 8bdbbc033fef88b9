"""Monte-Carlo-dropout uncertainty: for every small test batch the classifier is run once per dropout sample in a
Python loop (200 passes of a 4-row batch), instead of one forward over all samples stacked (forums: "MC dropout
inference is very slow, GPU/CPU barely used")."""
PLANTED = ("launch_overhead", "utilization", "host_bound")
TOL = 1e-5
import torch

torch.manual_seed(0)
torch.set_grad_enabled(False)
N_BATCH, B, D_IN, H, N_CLS, K, P = 80, 4, 64, 128, 10, 200, 0.2


class MCDropoutNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(D_IN, H)
        self.fc2 = torch.nn.Linear(H, H)
        self.out = torch.nn.Linear(H, N_CLS)

    def forward(self, x, m1, m2):
        h = torch.relu(self.fc1(x)) * m1
        h = torch.relu(self.fc2(h)) * m2
        return torch.softmax(self.out(h), dim=-1)


net = MCDropoutNet().eval()
batches = [torch.randn(B, D_IN) for _ in range(N_BATCH)]


def dropout_masks():
    # drawn up front so that runs are reproducible
    return [(torch.rand(K, B, H) > P).float() / (1 - P) for _ in range(2)]


def main():
    means, stds = [], []
    for x in batches:
        m1, m2 = dropout_masks()
        probs = torch.stack([net(x, m1[k], m2[k]) for k in range(K)])
        means.append(probs.mean(0))
        stds.append(probs.std(0))
    return torch.stack([torch.cat(means), torch.cat(stds)])


if __name__ == "__main__":
    result = main()
