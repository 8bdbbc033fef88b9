import gzip
import io
import json
import random
from collections import Counter

random.seed(0)
N_RECORDS, BATCH = 44_000, 2_000
LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR")
ROUTES = [f"/api/v2/{r}/{{}}" for r in ("items", "users", "orders", "carts", "search")]


def make_records():
    recs = []
    t = 1_700_000_000.0
    for i in range(N_RECORDS):
        t += random.expovariate(50.0)
        route = random.choice(ROUTES)
        recs.append({"ts": round(t, 3), "level": random.choice(LEVELS), "route": route.format(random.randint(1, 5000)),
                     "user": f"u{random.randint(1, 20000):05d}", "latency_ms": round(random.lognormvariate(3.0, 0.6), 2),
                     "status": random.choice((200, 200, 200, 200, 201, 304, 404, 500)), "seq": i})
    return recs


def pack(batch):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6, mtime=0) as gz:
        gz.write("\n".join(json.dumps(r, separators=(",", ":")) for r in batch).encode())
    return buf.getvalue()


def receive(blob, stats):
    for line in gzip.decompress(blob).decode().splitlines():
        rec = json.loads(line)
        stats[rec["level"]] += 1
        stats["slow"] += rec["latency_ms"] > 60.0
        stats["errors"] += rec["status"] >= 500


def main():
    recs = make_records()
    stats = Counter()
    shipped = 0
    for i in range(0, N_RECORDS, BATCH):
        blob = pack(recs[i:i + BATCH])
        shipped += 1
        receive(blob, stats)
    return [shipped] + [stats[k] for k in ("DEBUG", "INFO", "WARN", "ERROR", "slow", "errors")]


if __name__ == "__main__":
    result = main()
