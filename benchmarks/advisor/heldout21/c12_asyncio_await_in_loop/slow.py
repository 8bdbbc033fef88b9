"""An asyncio feature-enrichment step fetches 160 records from a (simulated, 4 ms latency) lookup service.
Planted: the coroutines are awaited one after another in a for loop, so the program sits idle through
every round trip in turn, instead of running them concurrently with asyncio.gather under a semaphore. Modelled on "my async code is not faster" threads."""
PLANTED = ("idle", "sync")
TOL = 1e-12
import asyncio
import hashlib

LATENCY, N_KEYS, MAX_IN_FLIGHT = 0.004, 160, 16
keys = [f"item-{i:05d}" for i in range(N_KEYS)]


async def fetch(key):
    await asyncio.sleep(LATENCY)
    digest = hashlib.sha256(key.encode()).digest()
    return {"key": key, "price": int.from_bytes(digest[:4], "little") / 2 ** 32 * 100.0, "stock": digest[4] % 50}


async def enrich(keys):
    rows = []
    for key in keys:
        rows.append(await fetch(key))
    return rows


def main():
    rows = asyncio.run(enrich(keys))
    value = sum(r["price"] * r["stock"] for r in rows)
    in_stock = sum(1 for r in rows if r["stock"] > 0)
    return float(value) + in_stock / 1000.0


if __name__ == "__main__":
    result = main()
