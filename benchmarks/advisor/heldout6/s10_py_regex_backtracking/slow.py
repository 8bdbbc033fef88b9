"""Cleans a batch of user-entered product tags: a regex keeps the tags made of words separated by single
spaces, then the kept tags are lower-cased and counted (StackOverflow questions and regex-outage
post-mortems: "my regex hangs on some inputs", catastrophic backtracking in a nested quantifier such as
(\\w+\\s?)+).

On a tag that ends in punctuation the nested quantifier tries every way of splitting each word before it
gives up, exponential in the length of the tag; the equivalent pattern without the nesting fails at once."""
PLANTED = ("hotspot",)
TOL = 1e-9
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
VALID_TAG = re.compile(r"^(\w+\s?)+$")


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
