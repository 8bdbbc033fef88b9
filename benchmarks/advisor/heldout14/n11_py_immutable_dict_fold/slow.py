"""Event-sourced account ledger in plain Python, written in a "pure reducer" style: each event returns a new
state dict built with ``{**state, key: value}``, so every one of the events copies the whole (growing) ledger
to change one entry and the fold is quadratic in the number of accounts; modelled on a code-review thread on a
payments service ("replaying the event log gets slower the longer it is")."""
PLANTED = ("memory", "redundant", "host_bound", "hotspot")
TOL = 1e-9
import random

random.seed(0)
N_EVENTS, N_ACCOUNTS = 20_000, 6_000
events = []
for i in range(N_EVENTS):
    acct = f"acct-{random.randrange(N_ACCOUNTS):05d}"
    kind = random.choice(("deposit", "deposit", "withdraw", "fee"))
    events.append((kind, acct, round(random.uniform(1.0, 500.0), 2)))


def apply_event(state: dict, event) -> dict:
    kind, acct, amount = event
    balance = state.get(acct, 0.0)
    if kind == "deposit":
        balance += amount
    elif kind == "withdraw":
        balance -= min(amount, max(balance, 0.0))
    else:
        balance -= 0.01 * amount
    return {**state, acct: round(balance, 2)}


def main():
    state = {}
    checkpoints = []
    for i, ev in enumerate(events):
        state = apply_event(state, ev)
        if i % 2_000 == 1_999:
            checkpoints.append((len(state), sum(state.values())))
    top = sorted(state.values(), reverse=True)[:10]
    return [x for pair in checkpoints for x in pair] + top


if __name__ == "__main__":
    result = main()
