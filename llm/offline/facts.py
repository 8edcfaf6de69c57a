"""Turn recalled fact lines into the shopper's standing preferences, newest date winning."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm.offline.notes import Fact
from llm.offline.shopper import brand_find, price_read, request_parse, size_read
from llm.offline.vocabulary import Vocabulary

_NEGATIVE = ("dislike", "hate", "avoid", "not ", "never", "doesn't", "does not", "no longer")


@dataclass
class Profile:
    letter_size: str | None = None
    shoe_size: str | None = None
    disliked_colours: list[str] = field(default_factory=list)
    max_price: float | None = None
    brand: str | None = None

    def size_for(self, category: str | None, vocabulary: Vocabulary) -> str | None:
        """Only with a category: a shoe size would empty a t-shirt search, and vice versa."""
        if not category:
            return None
        return self.shoe_size if vocabulary.is_footwear(category) else self.letter_size


def profile_from_facts(facts: list[Fact], vocabulary: Vocabulary) -> Profile:
    """Fold facts oldest first so the most recently stated one wins (seed 000, rule 2).

    Undated facts count as oldest; equal dates keep the order the notes listed them in.
    """
    profile = Profile()
    for fact in sorted(facts, key=lambda f: (f.date or "0000-00-00", f.order)):
        _fact_apply(profile, fact.text, vocabulary)
    return profile


def _fact_apply(profile: Profile, text: str, vocabulary: Vocabulary) -> None:
    lowered = text.lower()
    negative = any(cue in lowered for cue in _NEGATIVE)
    if "size" in lowered or "wears" in lowered:
        size = size_read(text, vocabulary, category="shoes" if "shoe" in lowered else None)
        if size and size.isdigit():
            profile.shoe_size = size
        elif size:
            profile.letter_size = size
    if any(word in lowered for word in ("budget", "spend", "up to", "under", "at most")):
        price = price_read(text) or _first_amount(lowered)
        if price:
            profile.max_price = price
    brand = brand_find(text, vocabulary.brands)
    if brand:
        if negative and profile.brand == brand:
            profile.brand = None
        elif not negative:
            profile.brand = brand
    parsed = request_parse(text, vocabulary)
    for colour in parsed.colours:
        # A later liking cancels an earlier dislike ("likes yellow again").
        if colour in profile.disliked_colours:
            profile.disliked_colours.remove(colour)
    for colour in parsed.excluded_colours:
        if colour not in profile.disliked_colours:
            profile.disliked_colours.append(colour)


def _first_amount(lowered: str) -> float | None:
    match = re.search(r"(\d{1,5}(?:\.\d{1,2})?)\s*(?:eur|€|euros?)", lowered)
    return float(match.group(1)) if match else None
