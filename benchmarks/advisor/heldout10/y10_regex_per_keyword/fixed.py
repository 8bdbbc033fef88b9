import random
import re
from collections import Counter

N_KEYWORDS = 640
N_TICKETS = 60
WORDS_PER_TICKET = 90

SYLLABLES = ["ka", "lo", "mi", "ter", "vo", "zen", "pra", "dul", "sti", "qua", "rex", "neo", "fli", "mor"]
FILLER = ("the printer stopped working after update please help customer reports error code again "
          "login fails when I try to open dashboard invoice missing attachment refund request slow sync "
          "with my phone cannot export report").split()


def product_names(rng):
    names = set()
    while len(names) < N_KEYWORDS:
        n = rng.randint(2, 4)
        name = "".join(rng.choice(SYLLABLES) for _ in range(n))
        if rng.random() < 0.3:
            name += f" {rng.randint(2, 9)}"
        names.add(name)
    return sorted(names)


def make_tickets(rng, names):
    tickets = []
    for _ in range(N_TICKETS):
        words = [rng.choice(FILLER) for _ in range(WORDS_PER_TICKET)]
        for _ in range(rng.randint(0, 3)):
            name = rng.choice(names)
            words.insert(rng.randrange(len(words)), name.upper() if rng.random() < 0.3 else name)
        tickets.append(" ".join(words))
    return tickets


def compile_keywords(keywords):
    return [(kw, re.compile(r"\b" + re.escape(kw) + r"\b", flags=re.IGNORECASE)) for kw in keywords]


def tag_ticket(text, patterns):
    tags = []
    for kw, pattern in patterns:
        if pattern.search(text):
            tags.append(kw)
    return tags


def main():
    rng = random.Random(0)
    names = product_names(rng)
    tickets = make_tickets(rng, names)
    counts = Counter()
    per_ticket = []
    patterns = compile_keywords(names)
    for text in tickets:
        tags = tag_ticket(text, patterns)
        counts.update(tags)
        per_ticket.append(len(tags))
    return [sum(counts.values()), len(counts)] + per_ticket + [counts[n] for n in names[:50]]


if __name__ == "__main__":
    result = main()
