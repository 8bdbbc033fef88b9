"""Billing run: each invoice line's discounted net and tax are rounded half-up to the cent, summed per invoice
and summarised per customer. Planted: the line arithmetic uses decimal.Decimal objects (quantize per line)
in a Python loop, where integer cents give the same exact rounding and vectorise. Modelled on a code review
of a billing job ("use integer cents, not Decimal, for bulk line arithmetic")."""
PLANTED = ("precision", "host_bound")
TOL = 1e-6
from decimal import ROUND_HALF_UP, Decimal

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
CENT = Decimal("0.01")


def invoice_totals(df):
    totals = {}
    for inv, qty, unit, disc, tax_bp in zip(df["invoice"], df["qty"], df["unit_cents"],
                                           df["discount_pct"], df["tax_bp"]):
        price = Decimal(int(unit)) / 100
        net = (price * int(qty) * (100 - int(disc)) / 100).quantize(CENT, rounding=ROUND_HALF_UP)
        tax = (net * int(tax_bp) / 10_000).quantize(CENT, rounding=ROUND_HALF_UP)
        totals[inv] = totals.get(inv, Decimal(0)) + net + tax
    index = np.array(sorted(totals))
    return pd.Series([float(totals[i]) for i in index], index=index)


def main():
    totals = invoice_totals(lines)
    per_invoice = pd.DataFrame({"customer": invoice_customer[totals.index], "total": totals.to_numpy()})
    report = per_invoice.groupby("customer")["total"].agg(["sum", "mean", "max", "count"])
    report["rank"] = report["sum"].rank(ascending=False, method="first")
    return report.sort_values("rank").to_numpy()[:500]


if __name__ == "__main__":
    result = main()
