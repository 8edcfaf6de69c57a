"""Which shown product a message points at: "the second one", "the black one", "it".

The products are those the newest answer of this visit showed (its products-shown line),
and the product page the shopper is on.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llm.offline.assistant.naming import products_named
from llm.offline.assistant.page import page_product
from llm.offline.assistant.words import ORDINAL_WORDS, singular
from llm.offline.shopper import ShopperRequest
from llm.offline.vocabulary import Vocabulary
from llm.shopper_words import NUMBER_WORDS
from llm.transcript import ShownProduct

if TYPE_CHECKING:
    from llm.offline.assistant.conversation import State

SINGULAR_REFERENCE = re.compile(
    r"\b(it|that one|this one|the (\w+[ \-])?one|the (first|second|third|fourth|last|cheapest)"
    r"( one)?|that (\w+)|this (\w+))\b"
    # A place written short or by its number: "the 2nd", "1st one", "number 3", "#2".
    r"|\b(1st|2nd|3rd|4th)\b|\b(number|option|item|no\.?) ?[1-4]\b|#[1-4]\b"
    r"|^\W*(first|second|third|fourth|last) (one|pair)\b"
)
PRONOUN = re.compile(r"\b(it|that one|this one|the one)\b")
THIS = re.compile(
    r"\bthis\b(?!\s+(weekend|week|summer|winter|spring|autumn|year|time|evening|morning|"
    r"month|season))"
)
PLURAL_REFERENCE = re.compile(r"\b(these|those|them|any of them|the ones|ones|others|any)\b")
ORDINALS = (
    *(
        (
            re.compile(
                rf"\b(the )?({word}|{short})\b|\b(number|option|item|no\.?) ?({spelt}|{digit})\b"
                rf"|#{digit}\b"
            ),
            at,
        )
        for at, (word, short, spelt, digit) in enumerate(ORDINAL_WORDS)
    ),
    (re.compile(r"\bthe last( one)?\b"), -1),
)
# A message that points at a place in the list shown: no request of its own, and never out
# of scope ("#2", "option 2", "1st one pls").
POSITION_POINTED = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|then)\W+)?(?:the\s+)?"
    r"(?:1st|2nd|3rd|4th|first|second|third|fourth|last|(?:number|option|item|no\.?)\s?[1-4]"
    r"|#[1-4])(?:\s+(?:one|pair))?(?:\s+(?:pls|please|then))?\W*$"
)
# "The top one", "the bottom one" of a list: its first and its last, not a garment.
_TOP_OR_BOTTOM = (
    (re.compile(r"\bthe top (one|pair)\b"), r"the first \1"),
    (re.compile(r"\bthe bottom (one|pair)\b"), r"the last \1"),
)


def positions_spelt(text: str) -> str:
    """ "the top one" as "the first one": what the list shown counts by, not a category."""
    for pattern, spelt in _TOP_OR_BOTTOM:
        text = pattern.sub(spelt, text)
    return text


SHOPPING_INTENT = re.compile(
    r"\b(looking for|show me|do you (have|sell|stock|carry)|got any|i need|i want|find me|"
    r"recommend|suggest|buy|shopping for|searching for|any)\b"
)
# "any in blue?", "got any in M?": a follow-up about what was just shown, not a new search.
_ANY_IN = re.compile(r"^\s*(?:and\s+|but\s+)?(?:got\s+)?any(?:thing)?\s+in\b")


_CHEAPEST = re.compile(
    r"\b(cheapest|least expensive|lowest[- ]priced|most affordable|lowest price)\b"
)
# Cheap without a figure: no limit to filter by, so the lowest prices first; but "cheaper"
# and "too pricey" compare with what is in view (the planner's own rule).
_CHEAP = re.compile(
    r"\b(cheap|inexpensive|affordable|low[- ]cost|budget[- ]friendly)\b"
    r"|\bnot (too |very |that |so )?(pricey|expensive|dear)\b"
)
_COMPARED = re.compile(
    r"\b(more|less) (affordable|expensive|pricey)\b|\bcheaper\b"
    r"|(?<!not )\btoo (pricey|expensive)\b"
)
_DEAREST = re.compile(r"\b(most expensive|priciest|dearest|highest[- ]priced|highest price)\b")
# "the cheapest one", "which of these is dearest": among the products in view.
AMONG_SHOWN = re.compile(
    rf"\b(one|ones|of (these|those|them|the ({'|'.join(NUMBER_WORDS)}))|here|shown|which)\b"
)


_THEY = re.compile(r"\b(they|them|these|those)\b")
# "a waxed jacket ...", "show me some ...": asking for a new one, not pointing at one shown;
# "show me all the wool ones": asking for every one of a kind.
_NEW_ONE = re.compile(
    r"^\s*(?:(?:i|i'd|i'm)\s+(?:want|need|like|looking for)\s+|show me\s+|looking for\s+)?"
    r"(?:a|an|some)\b"
    r"|\b(?:show|see|find|list)\s+(?:me\s+)?(?:all|every|each)\b|\b(?:all|every) the\b"
)
_ONLY = re.compile(r"\b(only|just)\b")
_OPENS_ON_ONE = re.compile(
    r"^\W*(?!(?:any|some|only|just|all|no|not|other|which|what|more|new|cheaper|this|that|"
    r"these|those|the|a|an)\b)(?:[a-z][a-z-]*\s+){1,2}(?:one|pair)\b"
)
# "the other one" of two in view, once one of them was asked about.
_OTHER = re.compile(r"\b(the )?other (one|pair)\b|\bthe other\b")
# A question of the product in focus, with nothing else named: "how much?", "is that
# leather?", "does it run small?", "are they comfy?".
OF_THE_ONE = re.compile(
    r"^\W*(?:and\s+|so\s+|ok\s+)?(?:how much|price|cost|what(?:'s| is| does) (?:the price|it cost))"
    r"(?:\s+(?:is|are|does)\s+(?:it|that|this|they)(?:\s+cost)?)?\W*$"
    r"|^\W*(?:and\s+|so\s+)?(?:is|does|has|was|are|do)\s+(?:that|it|this|they)\b"
)
# "the cheaper of the two", "the pricier one of those": a comparative among what is shown.
PICKED_AMONG_SHOWN = re.compile(
    r"\b(?P<way>cheaper|cheapest|less expensive|pricier|dearer|more expensive)"
    r"( one| pair)? of (the (two|three|four)|these|those|them)\b"
    # "the cheaper one": a comparative names one of two.
    r"|\bthe (?P<way2>cheaper|less expensive|pricier|dearer|more expensive) (?:one|pair)\b"
)


# An order asked for by name: "sort by price", "price low to high", "high to low".
_BY_PRICE_DOWN = re.compile(
    r"\bhigh(?:est)?\s*(?:-|to)\s*low(?:est)?\b|\bby price,?\s*(?:high|highest|descending)\b"
)
_BY_PRICE_UP = re.compile(
    r"\b(?:sort|order|rank|list)(?:ed)?\s+(?:them\s+|these\s+|those\s+|it\s+)?by\s+price\b"
    r"|\blow(?:est)?\s*(?:-|to)\s*high(?:est)?\b"
)


def order_words(lowered: str) -> set[str]:
    """The words of an order asked by name ("low to high"): no search words."""
    spans = [m.group(0) for p in (_BY_PRICE_DOWN, _BY_PRICE_UP) for m in p.finditer(lowered)]
    return {word for span in spans for word in re.findall(r"[a-z]+", span)}


def superlative(lowered: str) -> str | None:
    """ "price_asc" for the cheapest, "price_desc" for the dearest, None for neither."""
    if _DEAREST.search(lowered) or _BY_PRICE_DOWN.search(lowered):
        return "price_desc"
    if _BY_PRICE_UP.search(lowered):
        return "price_asc"
    if _CHEAPEST.search(lowered):
        return "price_asc"
    return "price_asc" if _CHEAP.search(lowered) and not _COMPARED.search(lowered) else None


def referenced_product(
    lowered: str,
    parsed: ShopperRequest,
    state: State,
    page: dict | None,
    vocabulary: Vocabulary,
) -> tuple[ShownProduct | None, bool]:
    """The product a follow-up points at, and whether its colour picked it."""
    shown = state.shown
    on_page = page_product(page)
    for product in [*shown, *([on_page] if on_page else [])]:
        if product.name.lower() in lowered:
            return product, False
    known = [*shown, *([on_page] if on_page else [])]
    if _OTHER.search(lowered) and state.picked_sku is not None:
        # "The other one": of what this visit showed, the newest but the one just discussed.
        others = [p for p in state.seen if p.sku != state.picked_sku]
        if others:
            return others[0], False
    compared = PICKED_AMONG_SHOWN.search(lowered)
    if compared and shown:
        way = compared["way"] or compared["way2"]
        # "The cheaper one" after an answer about one: of it and the one before it.
        pool = shown if len(shown) > 1 or not compared["way2"] else state.seen[:2]
        priced = [p for p in pool if p.price_eur is not None]
        pick = min if way in ("cheaper", "cheapest", "less expensive") else max
        return (pick(priced, key=lambda p: p.price_eur) if priced else shown[0]), False
    earlier = [*state.seen, *(p for p in known if p.sku not in {s.sku for s in state.seen})]
    # "breton one in M?": a message that opens on what the one is points as "the" does
    # ("satin ones?" asks for a kind: a narrower list).
    pointing = f"the {lowered}" if _OPENS_ON_ONE.search(lowered) else lowered
    named = products_named(pointing, earlier, vocabulary, determined=True)
    # "the ankle boots by Kestrel" is none of another brand's ankle boots.
    if named and parsed.brand and parsed.brand.lower() not in named[0][1].name.lower():
        named = []
    if len(named) == 1 and not _NEW_ONE.search(lowered):
        # "the mohair one", "is the roll neck in stock?" (a style word the category reader
        # also takes), but not "a waxed jacket for the rain" after rain boots.
        return named[0][1], False
    if parsed.max_price is not None and not (parsed.size or parsed.colours) and not named:
        return None, False  # "raise it to 150": "it" is the budget, a search's filter
    if parsed.categories and not any(
        singular(category) in product.name.lower()
        for product in known
        for category in parsed.categories
    ):
        return None, False  # a new category is a new search
    order = superlative(lowered)
    if order is not None and shown and AMONG_SHOWN.search(lowered):
        # "The cheapest of these": the one in view with the lowest (or highest) price.
        priced = [p for p in shown if p.price_eur is not None]
        pick = max if order == "price_desc" else min
        return (pick(priced, key=lambda p: p.price_eur) if priced else shown[0]), False
    if len(shown) == 1 and not parsed.categories and _THEY.search(lowered):
        return shown[0], False  # "how much are they?" of the one pair of boots in view
    # "Is the first one any good for the gym?": a place in the list names one, whatever
    # else the message says ("any" here is no plural).
    listing = state.listing or shown
    for pattern, position in ORDINALS if listing else ():
        if pattern.search(lowered) and SINGULAR_REFERENCE.search(lowered):
            return (listing[position] if position < len(listing) else listing[-1]), False
    if shown and parsed.colours and _colour_named_as_one(lowered, parsed.colours[0], vocabulary):
        # "The green ones?" of a list with one green pair: that pair, plural as pairs are.
        in_colour = [p for p in shown if parsed.colours[0] in p.colours]
        if len(in_colour) == 1:
            return in_colour[0], True
    # "Any in blue?" after a list refines its search, even a list of one; after the one
    # product the shopper pointed at, asks about it. ("In blue?" alone asks about the one.)
    one_in_view = _one_in_view(state, on_page)
    if (
        PLURAL_REFERENCE.search(lowered)
        and not PRONOUN.search(lowered)
        and not (one_in_view and _ANY_IN.search(lowered))
    ):
        return None, False
    if shown:
        if parsed.colours and _colour_named_as_one(lowered, parsed.colours[0], vocabulary):
            return _by_colour(shown, parsed.colours[0]), True
        if parsed.brand:
            by_brand = [p for p in shown if parsed.brand.lower() in p.name.lower()]
            if by_brand and SINGULAR_REFERENCE.search(lowered):
                return by_brand[0], False
    if on_page is not None and THIS.search(lowered):
        return on_page, False
    focus = _in_focus(state, on_page)
    if focus is not None and not parsed.categories and OF_THE_ONE.search(lowered):
        return focus, False
    if PRONOUN.search(lowered):
        if len(shown) == 1:
            return shown[0], False
        if on_page is not None:
            return on_page, False
        if shown:
            return shown[0], False
    bare = (parsed.size or parsed.colours) and not parsed.categories
    # "only navy", "yellow only": the list narrowed, whichever one was asked about.
    if bare and _ONLY.search(lowered):
        return None, False
    if bare and (not SHOPPING_INTENT.search(lowered) or _ANY_IN.search(lowered)):
        if len(shown) == 1:
            return shown[0], False
        if not shown and state.search is None and on_page is not None:
            return on_page, False
    return None, False


def _in_focus(state: State, on_page: ShownProduct | None) -> ShownProduct | None:
    """The product the conversation is on: the one the shopper last pointed at, the one in
    view, or the page's."""
    picked = next((p for p in state.seen if p.sku == state.picked_sku), None)
    if state.about_one and picked is not None:
        return picked
    if len(state.shown) == 1:
        return state.shown[0]
    return on_page if not state.shown else None


def _one_in_view(state: State, on_page: ShownProduct | None) -> bool:
    """One product is what the conversation is about: the one the shopper last pointed at,
    or the page's when no search has run. A search that found one is still a search."""
    if len(state.shown) == 1:
        return state.about_one or state.search is None
    return not state.shown and state.search is None and on_page is not None


def _colour_named_as_one(lowered: str, colour: str, vocabulary: Vocabulary) -> bool:
    """ "the black one", "that navy pair", "the grey jeans": a colour naming one product."""
    phrases = [p for p, value in vocabulary.colour_phrases.items() if value == colour] or [colour]
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return bool(re.search(rf"\b(the|that)\s+(\w+\s+)?({alternatives})\b", lowered))


def _by_colour(shown: list[ShownProduct], colour: str) -> ShownProduct | None:
    """ "The black one": a plain black product before one that is black among others."""
    candidates = [(len(p.colours), i, p) for i, p in enumerate(shown) if colour in p.colours]
    return min(candidates)[2] if candidates else None
