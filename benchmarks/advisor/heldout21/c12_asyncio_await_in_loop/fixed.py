import asyncio
import hashlib

LATENCY, N_KEYS, MAX_IN_FLIGHT = 0.004, 160, 16
keys = [f"item-{i:05d}" for i in range(N_KEYS)]


async def fetch(key):
    await asyncio.sleep(LATENCY)
    digest = hashlib.sha256(key.encode()).digest()
    return {"key": key, "price": int.from_bytes(digest[:4], "little") / 2 ** 32 * 100.0, "stock": digest[4] % 50}


async def enrich(keys):
    gate = asyncio.Semaphore(MAX_IN_FLIGHT)

    async def limited(key):
        async with gate:
            return await fetch(key)

    return await asyncio.gather(*(limited(key) for key in keys))


def main():
    rows = asyncio.run(enrich(keys))
    value = sum(r["price"] * r["stock"] for r in rows)
    in_stock = sum(1 for r in rows if r["stock"] > 0)
    return float(value) + in_stock / 1000.0


if __name__ == "__main__":
    result = main()
