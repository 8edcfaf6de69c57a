"""The checks of one replayed conversation turn against what its label expects.

Read by `manage.py score_conversations`. Every check reads what the shopper would see (the
answer's text and cards) or what the model sent the catalog (its first search's filters),
and the seeded catalog itself: "the cheapest" is checked against every product the search
matches, a catalog word against each shown product's name and description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shop.models import Product
from shop.selectors import CatalogFilters, product_get, products_page

# The filters a search's expectation names, compared as `score_requests` compares them.
SCORED = ("category", "colour", "exclude_colours", "size", "brand", "max_price", "material")
EXPECTATIONS = (
    "search",
    "words",
    "none",
    "no_search",
    "refers_to",
    "sort",
    "new_results",
    "answer_has",
    "answer_lacks",
    "fact",
    "lifts",
)
# An answer that says plainly the shop has none of something.
_NONE_SAID = re.compile(
    r"\b(couldn't find|could not find|can't find|don't (sell|carry|stock|have)|do not "
    r"(sell|carry|stock|have)|doesn't (sell|carry|stock)|we have no|there are no|no \w+ (in stock|"
    r"at all)|none|we have nothing|don't sell anything)\b",
    re.IGNORECASE,
)
_ALTERNATIVE = re.compile(r"\b(instead|alternatives?|other options)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Shown:
    """What this visit has shown: every product, and the newest answer's list."""

    skus: frozenset[str] = frozenset()
    last: tuple[dict[str, Any], ...] = ()
    # The newest answer that listed several: what "the second" counts in, though an answer
    # about one of them has shown that one alone since.
    listing: tuple[dict[str, Any], ...] = ()

    def after(self, cards: list[dict[str, Any]]) -> Shown:
        if not cards:
            return self
        listing = tuple(cards) if len(cards) > 1 else self.listing
        return Shown(self.skus | {card["sku"] for card in cards}, tuple(cards), listing)


@dataclass
class TurnResult:
    turn: dict[str, Any]
    visit: int
    first_search: dict[str, Any] | None
    answer: str = ""
    misses: list[str] = field(default_factory=list)
    fact_kept: bool | None = None  # None: the turn states no fact

    @property
    def act(self) -> str:
        return self.turn["act"]

    @property
    def understood(self) -> bool:
        return not self.misses


def scored_filters(arguments: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name in SCORED:
        value = arguments.get(name)
        if value is None or value == [] or value == "":
            continue
        if name == "exclude_colours":
            value = sorted(str(v).lower() for v in value)
        elif name == "max_price":
            value = float(value)
        elif isinstance(value, str):
            value = value.lower()
        kept[name] = value
    return kept


def _same_search(sent: dict[str, Any], wanted: dict[str, Any], text: str) -> bool:
    """Whether the search sent is the one wanted. A material the shopper named finds the same
    products as a filter or as a search word (the filter keeps the products whose name or
    description says it, as the word does), so either counts."""
    got, want = dict(scored_filters(sent)), dict(wanted)
    if got == want:
        return True
    materials = {got.pop("material", None), want.pop("material", None)} - {None}
    said = f"{text} {sent.get('query') or ''}".lower()
    return got == want and all(re.search(rf"\b{re.escape(m)}", said) for m in materials)


def turn_check(
    turn: dict[str, Any], replayed: Any, *, shown: Shown, judged: list, visit: int
) -> TurnResult:
    """Check one turn's answer (`replayed`: text, searches, looked_up, cards)."""
    expect = turn.get("expect") or {}
    first = replayed.searches[0] if replayed.searches else None
    result = TurnResult(turn, visit, first, replayed.text)
    misses = result.misses
    text, cards = replayed.text, replayed.cards
    if "search" in expect:
        wanted = scored_filters(expect["search"])
        if first is None:
            misses.append(f"no search (expected {wanted})")
        elif not _same_search(first, wanted, turn["text"]):
            misses.append(f"searched {scored_filters(first)}, expected {wanted}")
    if expect.get("no_search") and replayed.searches:
        misses.append(f"searched {scored_filters(first or {})} though nothing was to be searched")
    # "Show more" past the last match shows nothing, rightly, when it says so.
    all_shown = bool(
        expect.get("new_results")
        and not cards
        and _NO_MORE.search(text)
        and _nothing_left(first, shown)
    )
    for word in expect.get("words") or []:
        missing = [card["name"] for card in cards if not _says(card["sku"], word)]
        if not cards and all_shown:
            continue
        if not cards:
            misses.append(f"nothing shown for {word!r}")
        elif missing:
            misses.append(f"{word!r} not in {missing}")
    if expect.get("none"):
        if not _NONE_SAID.search(text):
            misses.append("does not say the shop has none")
        elif cards and not _ALTERNATIVE.search(text):
            misses.append(f"shows {[c['name'] for c in cards]} as a match")
    if "refers_to" in expect:
        _refers_check(expect["refers_to"], replayed, shown, misses)
    if expect.get("sort"):
        _sort_check(expect["sort"], first, cards, misses)
    if expect.get("new_results"):
        again = [card["name"] for card in cards if card["sku"] in shown.skus]
        if not cards and not all_shown:
            # Nothing shown is right only when the catalog has nothing more, said so.
            misses.append("shows nothing new")
        elif again:
            misses.append(f"shows again {again}")
    lowered = text.lower()
    for phrase in expect.get("answer_has") or []:
        if phrase.lower() not in lowered:
            misses.append(f"answer lacks {phrase!r}")
    for phrase in expect.get("answer_lacks") or []:
        if phrase.lower() in lowered:
            misses.append(f"answer has {phrase!r}")
    if expect.get("fact"):
        kept = {(slot, str(value).lower()) for slot, value in judged}
        result.fact_kept = all(
            (fact["slot"], str(fact["value"]).lower()) in kept for fact in expect["fact"]
        )
    return result


def _says(sku: str, word: str) -> bool:
    detail = product_get(sku=sku)
    if detail is None:
        return False
    haystack = f"{detail.name} {detail.description}".lower()
    word = word.lower()
    stem = re.sub(r"(ing|ed|es|s)$", "", word)
    # "running" is "run" (the search's stemmer finds "trail runs" by it).
    stems = {word, stem, re.sub(r"([^aeiou])\1$", r"\1", stem)}
    return any(len(stem) >= 3 and stem in haystack for stem in stems)


def _refers_check(wanted: dict[str, Any], replayed: Any, shown: Shown, misses: list) -> None:
    listed = list(shown.last)
    if "positions" in wanted:
        positions = wanted["positions"]
        # A place beyond the one product just answered about is a place in the list before.
        if len(listed) == 1 and max(positions) > 1 and shown.listing:
            listed = list(shown.listing)
        if not listed or max(positions) > len(listed):
            misses.append(f"positions {positions} of a list of {len(listed)}: not resolvable")
            return
        expected = {listed[p - 1]["sku"] for p in positions}
    elif "colour" in wanted:
        colour = wanted["colour"].lower()
        having = [card for card in listed if colour in card.get("colours", [])]
        plain = [card for card in having if list(card.get("colours", [])) == [colour]]
        chosen = having if len(having) == 1 else plain if len(plain) == 1 else []
        if not chosen:
            misses.append(f"no single {colour} product in the list shown: not resolvable")
            return
        expected = {chosen[0]["sku"]}
    else:
        # One name or several ("compare the X and the Y"): in the list shown, else the
        # catalog's product of that exact name (shown earlier, or on the page).
        names = wanted["name"] if isinstance(wanted["name"], list) else [wanted["name"]]
        expected = set()
        for name in names:
            found = {card["sku"] for card in listed if name.lower() in card["name"].lower()}
            found = found or set(
                Product.objects.active().filter(name__iexact=name).values_list("sku", flat=True)
            )
            if not found:
                misses.append(f"no {name!r} in the list shown or the catalog: not resolvable")
                return
            expected |= found
    about = {card["sku"] for card in replayed.cards} or set(replayed.looked_up)
    if about != expected:
        misses.append(f"about {sorted(about)}, expected {sorted(expected)}")


_NO_MORE = re.compile(r"\b(no more|that's all|that is all|nothing more|the last)\b", re.I)


def _nothing_left(first: dict | None, shown: Shown) -> bool:
    """Whether every product the turn's search matches was shown earlier this visit."""
    if first is None:
        return False
    filters = {k: v for k, v in first.items() if k not in ("offset", "limit")}
    try:
        every = products_page(filters=CatalogFilters(**filters), limit=50).hits
    except TypeError:
        return False
    return all(hit.sku in shown.skus for hit in every)


def _sort_check(order: str, first: dict | None, cards: list, misses: list) -> None:
    prices = [float(card.get("price_eur") or 0) for card in cards]
    descending = order == "price_desc"
    if not prices:
        misses.append("nothing shown to sort")
        return
    if prices != sorted(prices, reverse=descending):
        misses.append(f"prices shown in the order {prices}, not {order}")
        return
    if first is None:
        misses.append("no search to sort the catalog's matches by")
        return
    filters = {k: v for k, v in first.items() if k not in ("offset", "limit")}
    try:
        everything = products_page(filters=CatalogFilters(**filters), limit=50).hits
    except TypeError:
        misses.append(f"search {filters} is no catalog search")
        return
    matched = [hit.price_eur for hit in everything]
    best = (max if descending else min)(matched) if matched else None
    if best is not None and prices[0] != best:
        misses.append(f"first shown at €{prices[0]:.2f}; the {order} end is €{best:.2f}")
