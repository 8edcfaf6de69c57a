"""What a shopper says about themselves, acknowledged in one sentence; and questions about
the catalog itself ("which brands do you carry?").

A statement is read by the fact judge the pipeline runs after the answer (the same facts
memory will keep), plus what the judge keeps no fact of but the shopper still needs to hear
back: a budget in a currency the shop does not price in. Each is said back in the shop's
terms ("Noted: UK 8, that is EU 42 here."), so a conversion is never silent.
"""

from __future__ import annotations

import re
from functools import lru_cache

from llm.fact_schema import ANY_KEY, NEUTRAL, NO_BUDGET, slot_key
from llm.offline.assistant.words import and_join
from llm.offline.judge import facts_judge
from llm.offline.judge.judged import Judged
from llm.offline.vocabulary import Vocabulary
from llm.shopper_words import (
    SHOP_CURRENCY,
    Money,
    SizeSaid,
    money_said,
    shoe_size_eu,
    size_wording,
    waist_size_letter,
)

# "UK 10", "US 9.5": a size with the system it was given in.
SYSTEM_NUMBER = re.compile(r"\b(UK|US|EU)\s?(\d{1,2}(?:\.5)?)\b", re.I)

_BUDGET_CUE = re.compile(
    r"\b(budget|spend|spending|afford|up to|at most|max(imum)?|under|below|over|less than|"
    r"no more than|cheaper than)\b"
)
_BRANDS_ASKED = re.compile(
    r"\b(which|what) (brands?|labels?|makes?)\b|\bbrands? (do|d'you|you) (carry|sell|have|stock)"
    r"|\b(list|name) (your|the|all) brands\b"
)
_CATEGORIES_ASKED = re.compile(
    r"\bwhat (do you|does the shop|does aisle) (sell|carry|stock|have)\b\s*\??\s*$"
    r"|\bwhat (kinds?|sorts?|types?) of (things|products|clothes|items)\b"
)


def statement_read(
    text: str, vocabulary: Vocabulary, *, footwear: bool = False, occasions: bool = True
) -> list[str]:
    """What the shopper states about themselves, each as said back; [] when nothing.

    `footwear`: shoes are what the conversation is about, so "I'm a UK 10" is a shoe size.
    `occasions=False` leaves out what a request is for ("running shoes" is shopping for
    running): the search that follows says it, and saying it back reads oddly.
    """
    said = [
        phrase
        for fact in _judged(text)
        if (occasions or not fact.slot.startswith("occasion/"))
        and (phrase := _said(fact, text, vocabulary, footwear=footwear))
    ]
    lowered = text.lower()
    money = money_said(lowered)
    if money is not None and money.currency != SHOP_CURRENCY and _BUDGET_CUE.search(lowered):
        said.append(converted_said(money, vocabulary.rates.get(money.currency)))
    return said


def converted_said(money: Money, rate: float | None) -> str:
    """A budget in another currency, in euros at the shop's rate, or why it filters nothing."""
    if rate is None:
        return (
            f"a budget of {money.label}. Prices here are in euros and I have no exchange rate "
            "to convert with, so tell me your budget in euros and I'll keep to it"
        )
    return (
        f"a budget of {money.label}, about {round(money.amount * rate)} euros at the shop's "
        f"rate (1 {money.currency} = {rate:g} EUR)"
    )


@lru_cache(maxsize=4096)  # a conversation's earlier messages are read again each turn
def _judged(text: str) -> tuple[Judged, ...]:
    return tuple(facts_judge(text))


def acknowledgement(said: list[str], *, asks_for_more: bool) -> str:
    """ "Noted: UK 8, that is EU 42 here." and, with nothing else asked, an invitation."""
    text = f"Noted: {and_join(said)}."
    if asks_for_more:
        text += " What are you looking for? Tell me a category and I'll find options that fit."
    return text


def _said(fact: Judged, text: str, vocabulary: Vocabulary, *, footwear: bool) -> str | None:
    category, _, key = fact.slot.partition("/")
    value = fact.value
    if value in (NEUTRAL, NO_BUDGET) or key == ANY_KEY:
        return None  # a lifted preference is acted on (the search runs without it), not noted
    if category == "size" and key in ("shoes", "tops") and (fact.slot == "size/shoes" or footwear):
        # The judge files a size in the shop's system; the shopper hears their own words
        # beside it. In a conversation about shoes, "I'm a UK 10" is a shoe size.
        wording = size_wording(value, text, shoes=key == "shoes")
        if key == "tops":
            said = SYSTEM_NUMBER.search(wording or "")
            eu = shoe_size_eu(said.group(1), float(said.group(2))) if said else None
            if eu is None:
                return f"size {value}"
            wording, value = said.group(0), eu
        return SizeSaid(wording, value, "shoe").sentence if wording else f"shoe size EU {value}"
    if fact.slot == "size/waist":
        letter = waist_size_letter(float(value)) if value.isdigit() else None
        if letter is None:
            return f"a {value} waist"
        return f"a {value} waist, that is about {letter} in our sizes"
    if category == "size":
        garment = {"tops": "", "bottoms": " for trousers and jeans"}.get(key, f" for {key}")
        wording = size_wording(value, text, shoes=False)
        if wording:
            return f"{wording}{garment}, that is {value} here"
        return f"size {value}{garment}"
    if category == "budget":
        if value == "tight":
            return "a tight budget"
        amount, _, currency = value.partition(" ")
        # Another currency is said back once, with why it filters nothing (statement_read).
        return f"a budget of up to €{amount}" if currency in ("", SHOP_CURRENCY) else None
    if category == "brand":
        name = next((b for b in vocabulary.brands if slot_key(b) == key), None)
        if name is None:
            shown = key.replace("-", " ").title()
            return f"you like {shown}, a brand we don't carry" if value == "like" else None
        return f"you like {name}" if value == "like" else f"nothing from {name}"
    if category in ("colour", "material", "design", "values"):
        thing = key.replace("-", " ")
        return f"you like {thing}" if value == "like" else f"no {thing}"
    if category == "occasion":
        occasion = value.replace("-", " ")
        return f"you're shopping for {'an' if occasion[:1] in 'aeiou' else 'a'} {occasion}"
    return None


def catalog_answer(lowered: str, vocabulary: Vocabulary) -> str | None:
    """A question about what the shop carries, answered from its own vocabulary."""
    if _BRANDS_ASKED.search(lowered) and vocabulary.brands:
        return (
            f"We carry {len(vocabulary.brands)} brands: {and_join(list(vocabulary.brands))}. "
            "Tell me one and what you're looking for, and I'll show you what's in stock."
        )
    if _CATEGORIES_ASKED.search(lowered) and vocabulary.categories:
        return (
            f"We sell {and_join(list(vocabulary.categories))}. Tell me what you're looking "
            "for, with a colour, size or budget if you have one in mind."
        )
    return None
