import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_LINES, N_INVOICES, N_CUSTOMERS = 250_000, 40_000, 5_000
lines = pd.DataFrame({
    "invoice": np.sort(rng.integers(0, N_INVOICES, N_LINES)),
    "qty": rng.integers(1, 20, N_LINES),
    "unit_cents": rng.integers(99, 250_00, N_LINES),
    "discount_pct": rng.choice([0, 0, 0, 5, 10, 15, 25], N_LINES),
    "tax_bp": rng.choice([0, 700, 1900, 2100], N_LINES),  # tax rate in basis points
})
invoice_customer = np.array([f"cust-{c:05d}" for c in rng.integers(0, N_CUSTOMERS, N_INVOICES)])


def invoice_totals(df):
    # integer cents, exact: round-half-up of a / b for a, b >= 0 is (2a + b) // (2b)
    gross = df["qty"].to_numpy(np.int64) * df["unit_cents"].to_numpy(np.int64) \
        * (100 - df["discount_pct"].to_numpy(np.int64))
    net = (2 * gross + 100) // 200
    tax = (2 * net * df["tax_bp"].to_numpy(np.int64) + 10_000) // 20_000
    cents = pd.Series(net + tax).groupby(df["invoice"].to_numpy()).sum()
    return cents / 100


def main():
    totals = invoice_totals(lines)
    per_invoice = pd.DataFrame({"customer": invoice_customer[totals.index], "total": totals.to_numpy()})
    report = per_invoice.groupby("customer")["total"].agg(["sum", "mean", "max", "count"])
    report["rank"] = report["sum"].rank(ascending=False, method="first")
    return report.sort_values("rank").to_numpy()[:500]


if __name__ == "__main__":
    result = main()
