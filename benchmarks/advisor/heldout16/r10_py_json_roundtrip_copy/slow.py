"""Building order records for a pricing simulation from a nested template dict, each fresh record made with
`json.loads(json.dumps(TEMPLATE))` as a "fast deep copy", then filled in and priced in plain Python.
Modelled on StackOverflow/code-review threads like "fastest way to deep copy a dict, json vs deepcopy"."""
PLANTED = ["hotspot", "redundant"]
TOL = 1e-9
import json
import random

random.seed(0)
N_ORDERS, MAX_LINES = 18000, 6

TEMPLATE = {
    "customer": {"id": None, "tier": "standard", "region": None, "flags": {"vip": False, "tax_exempt": False}},
    "lines": [],
    "shipping": {"method": "ground", "cost": 0.0, "address": {"country": "GB", "postcode": None}},
    "discounts": {"codes": [], "rate": 0.0},
    "totals": {"net": 0.0, "tax": 0.0, "gross": 0.0},
    "meta": {"source": "web", "version": 3, "tags": ["sim", "pricing"]},
}
LINE_TEMPLATE = {"sku": None, "qty": 0, "unit_price": 0.0, "attrs": {"fragile": False, "weight_kg": 0.0}}
REGIONS = ["north", "south", "east", "west"]


def new_order():
    return json.loads(json.dumps(TEMPLATE))


def new_line():
    return json.loads(json.dumps(LINE_TEMPLATE))


def price(order):
    net = 0.0
    for line in order["lines"]:
        net += line["qty"] * line["unit_price"]
        if line["attrs"]["fragile"]:
            net += 2.5
    net *= 1.0 - order["discounts"]["rate"]
    weight = sum(line["qty"] * line["attrs"]["weight_kg"] for line in order["lines"])
    order["shipping"]["cost"] = 4.99 + 0.8 * weight if order["customer"]["tier"] == "standard" else 0.0
    tax = 0.0 if order["customer"]["flags"]["tax_exempt"] else 0.2 * net
    order["totals"].update(net=net, tax=tax, gross=net + tax + order["shipping"]["cost"])
    return order


def main():
    totals = []
    for i in range(N_ORDERS):
        order = new_order()
        order["customer"]["id"] = i
        order["customer"]["region"] = REGIONS[i % 4]
        order["customer"]["tier"] = "gold" if random.random() < 0.15 else "standard"
        order["customer"]["flags"]["tax_exempt"] = random.random() < 0.05
        order["discounts"]["rate"] = random.choice([0.0, 0.0, 0.05, 0.1])
        for _ in range(random.randint(1, MAX_LINES)):
            line = new_line()
            line["sku"] = f"SKU{random.randint(0, 999):04d}"
            line["qty"] = random.randint(1, 5)
            line["unit_price"] = round(random.uniform(1.0, 80.0), 2)
            line["attrs"]["fragile"] = random.random() < 0.1
            line["attrs"]["weight_kg"] = round(random.uniform(0.1, 3.0), 3)
            order["lines"].append(line)
        totals.append(price(order)["totals"]["gross"])
    return totals


if __name__ == "__main__":
    result = main()
