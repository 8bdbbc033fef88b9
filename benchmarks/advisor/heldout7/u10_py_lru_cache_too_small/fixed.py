import functools
import random
import re

random.seed(0)
BRANDS = ["amazon mktplace", "tesco stores", "shell oil", "uber trip", "netflix com", "spotify ab", "apple com bill",
          "starbucks coffee", "mcdonalds rest", "ikea retail", "lidl supermarket", "aldi sued", "deutsche bahn",
          "ryanair ltd", "booking com", "airbnb payments", "zara spain", "h and m store", "boots pharmacy",
          "pret a manger", "costa coffee", "sainsburys market", "waitrose food", "currys pc world", "argos retail",
          "paypal transfer", "google cloud", "microsoft store", "steam games", "deliveroo order", "just eat uk",
          "bp fuel station", "esso service", "vodafone mobile", "ee limited", "o2 telefonica", "virgin media",
          "british gas", "octopus energy", "thames water", "council tax", "tfl travel", "national rail",
          "easyjet airline", "hilton hotels", "marriott intl", "premier inn", "primark stores", "next retail",
          "john lewis", "marks spencer", "superdrug store", "screwfix direct", "b and q diy", "halfords ltd"]
CANON_TOKENS = {b: frozenset(b.split()) for b in BRANDS}
weights = [1.0 / (k + 1) ** 1.6 for k in range(len(BRANDS))]
lines = []
for _ in range(100_000):
    brand = random.choices(BRANDS, weights)[0]
    raw = f"  {brand.upper()} #{random.randrange(4):04d}*{random.choice(['LDN', 'MAN'])} "
    lines.append(f"2024-{random.randrange(1, 13):02d}-{random.randrange(1, 29):02d},{raw},{random.uniform(-200, -1):.2f}")


@functools.lru_cache(maxsize=None)
def canonical_merchant(raw):
    cleaned = re.sub(r"[^a-z ]", " ", raw.lower())
    tokens = frozenset(cleaned.split())
    return max(BRANDS, key=lambda b: (len(tokens & CANON_TOKENS[b]) / len(tokens | CANON_TOKENS[b]), b))


def main():
    totals = {}
    for line in lines:
        date, raw, amount = line.split(",")
        key = (canonical_merchant(raw), date[:7])
        totals[key] = totals.get(key, 0.0) + float(amount)
    return [totals[k] for k in sorted(totals)]


if __name__ == "__main__":
    result = main()
