"""Joining order records to customer records with a nested Python loop that scans the customer list for every order (O(orders x customers)), instead of indexing the customers by id in a dict once."""
PLANTED = ("hotspot", "redundant")
import random

import numpy as np

random.seed(0)
n_customers, n_orders = 3000, 7000
customers = [{"id": 10_000 + 7 * i, "region": random.randrange(12), "discount": random.choice([0.0, 0.05, 0.1, 0.2])}
             for i in range(n_customers)]
random.shuffle(customers)
orders = [{"customer_id": 10_000 + 7 * random.randrange(n_customers), "amount": round(random.uniform(5, 500), 2)}
          for _ in range(n_orders)]


def main():
    net = []
    region_total = [0.0] * 12
    for order in orders:
        for cust in customers:                                   # linear scan per order
            if cust["id"] == order["customer_id"]:
                value = order["amount"] * (1.0 - cust["discount"])
                net.append(value)
                region_total[cust["region"]] += value
                break
    return np.array(net + region_total)


if __name__ == "__main__":
    result = main()
