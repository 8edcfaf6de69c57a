"""Words every reader of the judge shares: the shopper's own pronouns and garment nouns."""

from __future__ import annotations

import re

from llm.fact_schema import GARMENT_SLOTS

FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|our|us|let's)\b", re.I
)
# Plural garment nouns a size or a habit is given for.
GARMENT_NOUNS = (
    r"(?:tops|t-shirts|tees|shirts|blouses|jumpers|sweaters|knitwear|knits|hoodies|shoes|sneakers|"
    r"trainers|boots|sandals|heels|loafers|jackets|coats|dresses|jeans|trousers|pants|chinos|skirts|shorts|"
    r"bottoms)"
)
GARMENT_WORDS = {word: slot for slot, words in GARMENT_SLOTS.items() for word in words}
GARMENT = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, GARMENT_WORDS), key=len, reverse=True)) + r")\b", re.I
)
