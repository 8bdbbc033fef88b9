import random
import re
from collections import Counter

import numpy as np

random.seed(0)
WORDS = ["usb", "cable", "cotton", "shirt", "knife", "steel", "jacket", "gaming", "led", "lamp", "yoga", "mat",
         "coffee", "mug", "sofa", "tent", "drone", "camera", "phone", "case", "charger", "organic", "kitchen",
         "blender"]


def make_tag():
    tag = " ".join(random.choice(WORDS) for _ in range(random.randint(1, 3)))
    r = random.random()
    if r < 0.035:
        tag += random.choice("!?.,")  # trailing punctuation: rejected
    elif r < 0.055:
        tag = tag.replace(" ", "  ", 1)  # double space: rejected
    return tag


TAGS = [make_tag() for _ in range(40_000)]
VALID_TAG = re.compile(r"^\w+(?:\s\w+)*\s?$")  # same language, no nested quantifier


def main():
    counts = Counter()
    kept = 0
    for tag in TAGS:
        if VALID_TAG.match(tag):
            kept += 1
            counts.update(tag.lower().split())
    return np.array([kept, len(counts)] + [counts[w] for w in WORDS], dtype=float)


if __name__ == "__main__":
    result = main()
