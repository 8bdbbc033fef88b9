import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
N_EVENTS, N_USERS, D = 400_000, 800, 8
user_id = torch.randint(0, N_USERS, (N_EVENTS,))
events = torch.randn(N_EVENTS, D)


class UserEvents(Dataset):
    def __init__(self, user_id, events):
        order = torch.argsort(user_id, stable=True)
        self.events = events[order]
        counts = torch.bincount(user_id, minlength=N_USERS)
        self.offsets = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)]).tolist()

    def __len__(self):
        return N_USERS

    def __getitem__(self, u):
        rows = self.events[self.offsets[u]:self.offsets[u + 1]]
        return torch.cat([rows.mean(dim=0), rows.amax(dim=0), torch.tensor([float(rows.shape[0])])])


def main():
    loader = DataLoader(UserEvents(user_id, events), batch_size=64, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    w = torch.randn(2 * D + 1, 4)
    outs = [torch.tanh(batch @ w) for batch in loader]
    return torch.cat(outs)


if __name__ == "__main__":
    result = main()
