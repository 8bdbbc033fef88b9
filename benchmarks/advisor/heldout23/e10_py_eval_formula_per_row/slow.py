"""Config-driven derived fields: each formula string is passed to `eval()` for every record, so Python parses
and compiles the same expressions thousands of times, instead of compiling each once and evaluating the code
object (code review: "our rule engine spends its time in compile")."""
PLANTED = ("redundant", "compile", "host_bound")
TOL = 1e-9
import random

random.seed(0)
N_ROWS = 12_000
FORMULAS = {
    "revenue": "qty * price * (1.0 - discount)",
    "margin": "(price - cost) / price if price > 0 else 0.0",
    "tax": "qty * price * (1.0 - discount) * (0.2 if region == 'eu' else 0.07)",
    "score": "min(1.0, max(0.0, 0.3 * qty / 10.0 + 0.7 * (price - cost) / (price + 1.0)))",
}
ROWS = [
    {
        "qty": random.randint(1, 20),
        "price": random.uniform(1.0, 50.0),
        "cost": random.uniform(0.5, 30.0),
        "discount": random.uniform(0.0, 0.3),
        "region": random.choice(["eu", "us", "apac"]),
    }
    for _ in range(N_ROWS)
]


def main():
    env = {"min": min, "max": max}
    totals = {name: 0.0 for name in FORMULAS}
    for row in ROWS:
        for name, expr in FORMULAS.items():
            totals[name] += eval(expr, env, row)
    return [totals[name] for name in FORMULAS]


if __name__ == "__main__":
    result = main()
