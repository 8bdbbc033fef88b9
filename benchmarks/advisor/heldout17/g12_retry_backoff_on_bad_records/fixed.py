import functools
import math
import random
import time

random.seed(0)
DEPOTS = [(random.uniform(47.0, 55.0), random.uniform(6.0, 15.0)) for _ in range(100)]


def make_lines(n=6000):
    lines = []
    for i in range(n):
        lat, lon = random.uniform(47.0, 55.0), random.uniform(6.0, 15.0)
        if random.random() < 0.005:
            lines.append(f"{i};{lat:.5f};lon?;{random.randint(1, 30)}")
        else:
            lines.append(f"{i};{lat:.5f};{lon:.5f};{random.randint(1, 30)}")
    return lines


LINES = make_lines()


def retry(tries=3, delay=0.004, backoff=2.0):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args):
            wait = delay
            for attempt in range(tries):
                try:
                    return fn(*args)
                except (ConnectionError, TimeoutError):
                    if attempt == tries - 1:
                        raise
                    time.sleep(wait)
                    wait *= backoff
        return inner
    return wrap


def haversine_km(a, b):
    (la1, lo1), (la2, lo2) = a, b
    p1, p2 = math.radians(la1), math.radians(la2)
    dp, dl = p2 - p1, math.radians(lo2 - lo1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


@retry()
def ingest(line):
    rid, lat, lon, parcels = line.split(";")
    pos = (float(lat), float(lon))
    dist, depot = min((haversine_km(pos, d), k) for k, d in enumerate(DEPOTS))
    return int(rid), depot, dist, int(parcels)


def main():
    per_depot = [0.0] * len(DEPOTS)
    skipped = 0
    for line in LINES:
        try:
            _, depot, dist, parcels = ingest(line)
        except ValueError:
            skipped += 1
            continue
        per_depot[depot] += dist * parcels
    return per_depot + [float(skipped)]


if __name__ == "__main__":
    result = main()
