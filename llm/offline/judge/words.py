"""Words every reader of the judge shares: the shopper's own pronouns and garment nouns."""

from __future__ import annotations

import re

from llm.fact_schema import GARMENT_SLOTS

FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|our|us|let's)\b", re.I
)
GARMENT_WORDS = {word: slot for slot, words in GARMENT_SLOTS.items() for word in words}
# Plural garment nouns a size or a habit is given for: the closed list's own ("blazers",
# "parkas", "jumpsuits" as well as "jackets"), and the wear words that have no plural.
GARMENT_NOUNS = (
    r"(?:"
    + "|".join(
        sorted(
            (
                re.escape(w)
                for w in GARMENT_WORDS
                if (w.endswith("s") and w + "es" not in GARMENT_WORDS) or w.endswith("wear")
            ),
            key=len,
            reverse=True,
        )
    )
    + r")"
)
GARMENT = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, GARMENT_WORDS), key=len, reverse=True)) + r")\b", re.I
)
