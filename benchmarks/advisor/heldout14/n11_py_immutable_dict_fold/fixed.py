import random

random.seed(0)
N_EVENTS, N_ACCOUNTS = 20_000, 6_000
events = []
for i in range(N_EVENTS):
    acct = f"acct-{random.randrange(N_ACCOUNTS):05d}"
    kind = random.choice(("deposit", "deposit", "withdraw", "fee"))
    events.append((kind, acct, round(random.uniform(1.0, 500.0), 2)))


def apply_event(state: dict, event) -> None:
    kind, acct, amount = event
    balance = state.get(acct, 0.0)
    if kind == "deposit":
        balance += amount
    elif kind == "withdraw":
        balance -= min(amount, max(balance, 0.0))
    else:
        balance -= 0.01 * amount
    state[acct] = round(balance, 2)  # update the one entry in place


def main():
    state = {}
    checkpoints = []
    for i, ev in enumerate(events):
        apply_event(state, ev)
        if i % 2_000 == 1_999:
            checkpoints.append((len(state), sum(state.values())))
    top = sorted(state.values(), reverse=True)[:10]
    return [x for pair in checkpoints for x in pair] + top


if __name__ == "__main__":
    result = main()
