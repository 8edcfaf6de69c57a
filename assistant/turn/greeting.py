"""The panel's opening words: a greeting and three suggested prompts.

The greeting uses the shopper's name and whether they came before. Suggestions follow the
page the shopper is on and their remembered size, colours and brand. A fact is read only
for words of the catalog's own vocabulary, so nothing of a stored sentence reaches the
panel but a size, colour or brand the shop sells.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SUGGESTION_COUNT = 3
DEFAULT_SUGGESTIONS = (
    "Show me black jeans",
    "A dress for a wedding",
    "Sneakers under €80",
    "A warm jacket for winter",
)
_NEGATIVE = re.compile(
    r"\b(dislikes?|hates?|avoids?|not|never|no|don't|doesn't|does not|can't stand)\b", re.I
)
_POSITIVE = re.compile(r"\b(likes?|loves?|prefers?|favou?rite|enjoys?|fan of|wears?)\b", re.I)
_SIZE = re.compile(r"\bsize\s+(?:is\s+)?([A-Za-z0-9]{1,4})\b", re.I)


@dataclass(frozen=True)
class Preferences:
    """What suggestions may use of a shopper's facts; the newest statement of each wins."""

    size: str | None = None
    shoe_size: str | None = None
    colour: str | None = None
    avoided_colour: str | None = None
    brand: str | None = None


def _mentioned(sentence: str, words: Sequence[str]) -> list[str]:
    return [w for w in words if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", sentence, re.I)]


def preferences_from_facts(
    facts: Sequence[str], *, vocabulary: dict[str, list[str]]
) -> Preferences:
    """Read size, colour and brand out of fact sentences given newest first."""
    found: dict[str, str] = {}
    sizes = {s.upper(): s for s in vocabulary.get("sizes", [])}
    for fact in facts:
        negative = bool(_NEGATIVE.search(fact))
        positive = bool(_POSITIVE.search(fact)) and not negative
        for match in _SIZE.finditer(fact):
            size = sizes.get(match.group(1).upper())
            if size is not None and not negative:
                found.setdefault("shoe_size" if size.isdigit() else "size", size)
        for colour in _mentioned(fact, vocabulary.get("colours", [])):
            if negative:
                found.setdefault("avoided_colour", colour)
            elif positive:
                found.setdefault("colour", colour)
        for brand in _mentioned(fact, vocabulary.get("brands", [])):
            if positive:
                found.setdefault("brand", brand)
    return Preferences(**found)


def greeting_text(*, shopper: str | None, returning: bool) -> str:
    if shopper is None:
        return "Hi! I'm Aisle's shopping assistant. What are you looking for today?"
    if returning:
        return f"Welcome back, {shopper}! What can I find for you today?"
    return f"Hi {shopper}! I'm your shopping assistant. What are you looking for today?"


def _product_suggestion(product: dict[str, Any], preferences: Preferences) -> str:
    sizes = list(product.get("sizes_in_stock") or [])
    shoes = bool(sizes) and all(s.isdigit() for s in sizes)
    size = preferences.shoe_size if shoes else preferences.size
    if size:
        return f"Do you have this in {size}?"
    return "Which sizes does this come in?"


def suggestions_compose(
    *,
    preferences: Preferences,
    product: dict[str, Any] | None = None,
    category: str | None = None,
) -> list[str]:
    """Exactly three prompts: the page's product first, then the shopper's taste, then defaults."""
    ideas: list[str] = []
    if product is not None:
        ideas.append(_product_suggestion(product, preferences))
        ideas.append("Show me something similar")
    elif category:
        ideas.append(f"Which {category} do you recommend?")
    if preferences.size:
        ideas.append(f"Show me jeans in {preferences.size}")
    if preferences.shoe_size:
        ideas.append(f"Sneakers in size {preferences.shoe_size}")
    if preferences.colour:
        ideas.append(f"Anything new in {preferences.colour}?")
    if preferences.brand:
        ideas.append(f"What's new from {preferences.brand}?")
    if preferences.avoided_colour and not preferences.colour:
        ideas.append(f"T-shirts, but nothing {preferences.avoided_colour}")
    ideas.extend(DEFAULT_SUGGESTIONS)
    return list(dict.fromkeys(ideas))[:SUGGESTION_COUNT]
