"""Shopper-like texts for embedder tests and benchmarks: queries, remembered facts, turns.

Every generator is deterministic for a seed and returns distinct texts, so a benchmark that
embeds them one by one never hits the server's query-vector cache.
"""

from __future__ import annotations

import random
from itertools import product

PRODUCTS = [
    "rain jacket",
    "trail running shoes",
    "wool jumper",
    "linen shirt",
    "leather boots",
    "summer dress",
    "down parka",
    "hiking backpack",
    "yoga leggings",
    "chinos",
    "swimsuit",
    "silk scarf",
]
COLOURS = ["red", "navy", "black", "olive green", "grey", "camel", "white", "burgundy"]
NEEDS = [
    "for a wedding in June",
    "for hiking in the Alps",
    "for the office",
    "for rainy commutes",
    "for a beach holiday",
    "that I can wash at 30 degrees",
    "under 80 euros",
    "in a size that fits wide feet",
    "without animal products",
    "for my teenage son",
]
QUERY_FORMS = [
    "{colour} {product} {need}",
    "do you have a {colour} {product} {need}?",
    "I'm looking for {product} {need}, ideally {colour}",
    "any {product} {need}",
    "show me {product} in {colour}",
    "what would go with my {colour} {product} {need}?",
]
FACT_FORMS = [
    "Prefers {colour} clothes and usually buys {product}.",
    "Bought a {colour} {product} last spring and returned it because it ran small.",
    "Wears size {size} and wants {product} {need}.",
    "Dislikes {colour}; asked twice about {product}.",
    "Is shopping {need} and has a budget of about {budget} euros.",
    "Said the {product} they own is worn out and they want another one {need}.",
]


def shopper_queries(count: int, *, seed: int = 0) -> list[str]:
    """Distinct search messages a shopper might type (about 5 to 25 tokens)."""
    distinct = sorted(
        {
            form.format(product=p, colour=c, need=n)
            for form, p, c, n in product(QUERY_FORMS, PRODUCTS, COLOURS, NEEDS)
        }
    )
    if count > len(distinct):
        raise ValueError(f"at most {len(distinct)} distinct queries")
    return random.Random(seed).sample(distinct, count)


def shopper_facts(count: int, *, seed: int = 0) -> list[str]:
    """Distinct facts a memory might hold about a shopper."""
    rng = random.Random(seed)
    facts: dict[str, None] = {}
    while len(facts) < count:
        form = rng.choice(FACT_FORMS)
        fact = form.format(
            product=rng.choice(PRODUCTS),
            colour=rng.choice(COLOURS),
            need=rng.choice(NEEDS),
            size=rng.choice(["S", "M", "L", "XL", "38", "42", "44"]),
            budget=rng.choice([50, 80, 120, 200, 300]),
        )
        facts[fact] = None
    return list(facts)


def shopper_turns(count: int, *, seed: int = 0, sentences: tuple[int, int] = (2, 12)) -> list[str]:
    """Distinct conversation turns of mixed length (a few sentences up to past 256 tokens)."""
    rng = random.Random(seed)
    queries = shopper_queries(count * 2, seed=seed)
    facts = shopper_facts(max(4 * count, sentences[1]), seed=seed)
    turns = []
    for n in range(count):
        said = [queries[2 * n], *rng.sample(facts, rng.randint(*sentences))]
        turns.append(f"Shopper: {said[0]} Assistant: " + " ".join(said[1:]))
    return turns
