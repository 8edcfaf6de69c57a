"""Recalled fact lines: the shopper's standing preferences, newest date winning.

A fact belongs to slots (the letter size, the shoe size, the budget, the brand, the
shopper's feeling about one colour); a newer fact on the same slot replaces an older one
(seed 000, rule 2). Facts that fit no slot are kept as they are, once each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from llm.fact_schema import (
    ANY_KEY,
    NEUTRAL,
    NO_BUDGET,
    FactSlot,
    garment_slot,
    slot_from_sentence,
    slot_key,
)
from llm.offline.notes import Fact
from llm.offline.shopper import brand_find, price_read, request_parse, size_read
from llm.offline.vocabulary import Vocabulary
from llm.shopper_words import (
    SHOP_CURRENCY,
    amounts_of_money,
    clothing_size_letter,
    size_said,
    waist_size_letter,
)

_NEGATIVE = ("dislike", "hate", "avoid", "not ", "never", "doesn't", "does not", "no longer")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


@dataclass
class Profile:
    letter_size: str | None = None  # for tops, and for any garment without its own size
    shoe_size: str | None = None
    disliked_colours: list[str] = field(default_factory=list)
    max_price: float | None = None
    brand: str | None = None
    # Sizes given for one kind of garment, by fact slot ("size/bottoms": "L").
    garment_sizes: dict[str, str] = field(default_factory=dict)

    def size_for(self, category: str | None, vocabulary: Vocabulary) -> str | None:
        """Only with a category: a shoe size would empty a t-shirt search, and vice versa;
        a size for bottoms is no size for tops."""
        if not category:
            return None
        if vocabulary.is_footwear(category):
            return self.shoe_size
        # A garment's own size first; the general (tops) size stands in for the rest.
        return self.garment_sizes.get(_slot_of_category(category) or "") or self.letter_size


def facts_by_date(facts: list[Fact]) -> list[Fact]:
    """Oldest first; undated facts count as oldest, equal dates keep the notes' order."""
    return sorted(facts, key=lambda f: (f.date or "0000-00-00", f.order))


def profile_from_facts(facts: list[Fact], vocabulary: Vocabulary) -> Profile:
    """Fold facts oldest first so the most recently stated one wins (seed 000, rule 2)."""
    profile = Profile()
    for fact in facts_by_date(facts):
        _fact_apply(profile, fact.text, vocabulary)
    return profile


def fact_slots(text: str, vocabulary: Vocabulary) -> list[str]:
    """The slots a fact speaks to: "size", "shoe size", "budget", "brand", "colour:navy"."""
    lowered = text.lower()
    lifted = slot_from_sentence(text)
    if lifted is not None and lifted.value in (NEUTRAL, NO_BUDGET):
        # A lift speaks to the slot it lifts: "no longer minds yellow" ends the dislike.
        key = lifted.slot.partition("/")[2]
        if lifted.category == "colour" and key != ANY_KEY:
            return [f"colour:{key.replace('-', ' ')}"]
        return {"budget": ["budget"], "brand": ["brand"]}.get(lifted.category, [])
    slots = []
    if "size" in lowered or "wears" in lowered:
        size = _size_of(text, vocabulary)
        if size:
            slots.append("shoe size" if size.isdigit() else "size")
    if _budget_of(text, vocabulary.rates) is not None:
        slots.append("budget")
    if brand_find(text, vocabulary.brands):
        slots.append("brand")
    parsed = request_parse(text, vocabulary)
    slots += [f"colour:{colour}" for colour in parsed.colours + parsed.excluded_colours]
    schema_slot = slot_from_sentence(text)
    if schema_slot is not None and schema_slot.category in ("material", "design"):
        slots.append(schema_slot.slot.replace("/", ":", 1))
    return slots


def current_facts(facts: list[Fact], vocabulary: Vocabulary) -> list[Fact]:
    """The facts still in force, oldest first: one per slot, the newest; others once each."""
    newest: dict[str, Fact] = {}
    seen_texts: set[str] = set()
    free: list[Fact] = []
    for fact in facts_by_date(facts):
        slots = fact_slots(fact.text, vocabulary)
        for slot in slots:
            newest[slot] = fact
        if not slots and fact.text.lower() not in seen_texts:
            seen_texts.add(fact.text.lower())
            free.append(fact)
    kept = {id(fact): fact for fact in newest.values()} | {id(fact): fact for fact in free}
    return facts_by_date(list(kept.values()))


def facts_about(
    facts: list[Fact], vocabulary: Vocabulary, *, prefix: str | tuple[str, ...]
) -> list[Fact]:
    """The current facts on the slots starting with prefix ("size", "colour:", ...).

    With several prefixes, facts come in the prefixes' order ("size" before "shoe size").
    """
    prefixes = (prefix,) if isinstance(prefix, str) else prefix
    ranked = []
    for fact in current_facts(facts, vocabulary):
        slots = fact_slots(fact.text, vocabulary)
        ranks = [i for i, p in enumerate(prefixes) for slot in slots if slot.startswith(p)]
        if ranks:
            ranked.append((min(ranks), fact))
    return [fact for _, fact in sorted(ranked, key=lambda pair: pair[0])]


def fact_for_shopper(text: str) -> str:
    """Say a stored third-person fact to the shopper: "The shopper wears size M." -> "you wear size M"."""
    sentence = text.strip().rstrip(".").strip()
    match = re.match(r"^(?:the )?shopper(?P<possessive>'s)?\s+(?P<rest>.*)$", sentence, re.I)
    if not match:
        return f"“{sentence}”"
    rest = match.group("rest")
    if match.group("possessive"):
        return f"your {rest}"
    verb, _, tail = rest.partition(" ")
    return " ".join(part for part in ("you", _second_person(verb), tail) if part)


def date_words(day: str) -> str:
    """ "2026-05-01" -> "1 May 2026"; anything else as it is."""
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        return day
    return f"{parsed.day} {_MONTHS[parsed.month - 1]} {parsed.year}"


def _second_person(verb: str) -> str:
    irregular = {
        "is": "are",
        "was": "were",
        "has": "have",
        "does": "do",
        "doesn't": "don't",
        "goes": "go",
    }
    lowered = verb.lower()
    if lowered in irregular:
        return irregular[lowered]
    if lowered.endswith("ies") and len(lowered) > 4:
        return lowered[:-3] + "y"
    if lowered.endswith(("ches", "shes", "sses", "xes", "zes")):
        return lowered[:-2]
    if lowered.endswith("s") and not lowered.endswith("ss"):
        return lowered[:-1]
    return lowered


def _budget_of(text: str, rates: dict[str, float]) -> float | None:
    lowered = text.lower()
    if not any(word in lowered for word in ("budget", "spend", "up to", "under", "at most")):
        return None
    other = [money for money in amounts_of_money(text) if money.currency != SHOP_CURRENCY]
    if other:
        # "up to 100 GBP": the shop prices in euros, so a budget in another currency filters
        # only at a rate the shop states; without one it is said back, never sent as euros.
        rate = rates.get(other[0].currency)
        return float(round(other[0].amount * rate)) if rate else None
    return price_read(text) or _first_amount(lowered)


# Garment sizes that never stand in for another's: a size for bottoms says nothing of tops.
_OWN_SIZE_SLOTS = ("size/bottoms", "size/dresses", "size/outerwear")


def _slot_of_category(category: str) -> str | None:
    lowered = category.lower()
    return garment_slot(lowered) or garment_slot(lowered.rstrip("s")) or garment_slot(lowered + "s")


def _fact_apply(profile: Profile, text: str, vocabulary: Vocabulary) -> None:
    lowered = text.lower()
    negative = any(cue in lowered for cue in _NEGATIVE)
    slot = slot_from_sentence(text)
    if slot is not None and slot.value in (NEUTRAL, NO_BUDGET):
        _lift_apply(profile, slot)
        return
    if slot is not None and slot.slot == "size/waist" and slot.value.isdigit():
        # A waist remembered is the bottoms' letter, as a waist said now is ("34" is L).
        letter = waist_size_letter(float(slot.value))
        shop_sizes = {size.upper(): size for size in vocabulary.sizes}
        if letter in shop_sizes:
            profile.garment_sizes["size/bottoms"] = shop_sizes[letter]
        return
    if slot is not None and slot.slot in _OWN_SIZE_SLOTS and not slot.is_relative:
        sizes = {size.upper(): size for size in vocabulary.sizes}
        # "size 12 in dresses": a numbered size is the UK one, in the shop's letters.
        value = slot.value.upper()
        if value.isdigit():
            value = clothing_size_letter("UK", int(value)) or value
        if value in sizes:
            profile.garment_sizes[slot.slot] = sizes[value]
        return
    if "size" in lowered or "wears" in lowered:
        size = _size_of(text, vocabulary)
        if size and size.isdigit():
            profile.shoe_size = size
        elif size:
            profile.letter_size = size
    price = _budget_of(text, vocabulary.rates)
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


def _lift_apply(profile: Profile, slot: FactSlot) -> None:
    """A lifted preference is no default any more: the search stops sending it."""
    key = slot.slot.partition("/")[2]
    if slot.slot == "budget":
        profile.max_price = None
    elif slot.category == "brand" and profile.brand:
        if key == ANY_KEY or slot_key(profile.brand) == key:
            profile.brand = None
    elif slot.category == "colour":
        profile.disliked_colours = [
            c for c in profile.disliked_colours if key != ANY_KEY and slot_key(c) != key
        ]


def _size_of(text: str, vocabulary: Vocabulary) -> str | None:
    """The shop's size a fact gives: "shoe size UK 8" is EU 42 here, "size M" is M."""
    lowered = text.lower()
    said = size_said(lowered, footwear=True if "shoe" in lowered else None)
    if said is not None and said.kind != "waist" and said.shop in vocabulary.sizes:
        return said.shop
    return size_read(text, vocabulary, category="shoes" if "shoe" in lowered else None)


def _first_amount(lowered: str) -> float | None:
    match = re.search(r"(\d{1,5}(?:\.\d{1,2})?)\s*(?:eur|€|euros?)", lowered)
    return float(match.group(1)) if match else None
