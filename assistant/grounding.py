"""The grounding check: an answer's factual claims, held against this turn's catalog data.

Between any model and the shopper (design section 6). The catalog is the only source of
prices, stock and sizes; a model, hosted or offline, may still write a wrong price, a stock
count it made up, a colour that is sold out, or a product it remembers from another visit.
Each sentence is checked before the shopper sees it, against the evidence of this turn:
what the tools returned, the page's product lookup, and the figures the shopper gave.

What is checked, per sentence (a list line counts as one):
- money amounts: a price of a product seen this turn, a figure the shopper gave (or that
  the model passed to a search), or the difference of two such prices;
- stock counts ("3 left") for a product in a size and colour, from its variants;
- availability ("in stock in M", "comes in red"): the size and colour are in stock;
- lists of sizes or colours said to be in stock;
- product names given as results (bold or linked): a product a tool returned this turn.
An unbacked claim is corrected from the data when the sentence says which product it is
about; otherwise the sentence is dropped and a short honest line said once in its place.
Claims of style or fit ("perfect for summer") are not facts the catalog holds: they pass.
The evidence is `assistant.grounding_evidence`.

`AnswerGrounder` does this as text streams: a sentence is released once it is complete and
checked, so the shopper still reads the answer as it is written.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from assistant.grounding_evidence import Evidence, Product, name_plain

Kind = Literal["price", "stock", "availability", "sizes", "colours", "name"]
Verdict = Literal["backed", "corrected", "dropped"]
KINDS: tuple[Kind, ...] = ("price", "stock", "availability", "sizes", "colours", "name")

# What is said, once per answer, in place of a sentence whose claim could not be backed.
DROPPED_LINES: dict[Kind, str] = {
    "price": "(I've left out a price I couldn't confirm in the catalog.)",
    "stock": "(I've left out a stock figure I couldn't confirm; the product page shows what's in stock.)",
    "availability": "(I've left out an availability detail I couldn't confirm in the catalog.)",
    "sizes": "(I've left out sizes I couldn't confirm in the catalog.)",
    "colours": "(I've left out colours I couldn't confirm in the catalog.)",
    "name": "(I've left out a product I couldn't find in this turn's catalog results.)",
}


@dataclass(frozen=True)
class Claim:
    kind: Kind
    verdict: Verdict


@dataclass
class Checked:
    """One sentence after the check: what the shopper reads, and each claim's verdict."""

    text: str
    claims: list[Claim]
    dropped: Kind | None = None


# --- reading claims ------------------------------------------------------------------------

_AMOUNT = re.compile(
    r"(?:€|\bEUR\s?)\s?(?P<a>\d+(?:[.,]\d{1,2})?)|(?P<b>\d+(?:[.,]\d{1,2})?)\s?(?:€|EUR\b|euros?\b)",
    re.I,
)
_LIMIT_BEFORE = re.compile(
    r"\b(?:under|below|up to|at most|less than|within|budget(?: of)?|max(?:imum)?)\s*(?:of\s*)?$",
    re.I,
)
# A figure after "size" is the size ("in size 42 in stock"), never a count of pieces.
_COUNT = re.compile(
    r"(?<!size )\b(?:only\s+)?(?P<n>(?<!size )\d+)\s+(?:left|remaining|in stock|available|"
    r"pieces? left|units?)\b"
    r"|\bonly\s+(?P<m>\d+)\b",
    re.I,
)
_NEGATIVE = re.compile(
    r"\b(?:isn't|is not|aren't|are not|not|no longer|out of stock|sold out|unavailable|"
    r"don't|doesn't|do not|does not|none|no|couldn't|could not|can't|cannot|haven't|hasn't|"
    r"nothing|never)\b",
    re.I,
)
_AVAILABLE = re.compile(
    r"\b(?:in stock|available|have (?:it|them|one|this|that)|do have|comes? in|yes)\b", re.I
)
_LETTER_SIZE = r"XXS|XS|S|M|L|XL|XXL"
_SIZE_MENTION = re.compile(rf"\b(?:sizes?|in|an?)\s+(?P<size>{_LETTER_SIZE}|\d{{2}})\b")
_SIZE_ITEM = rf"(?:{_LETTER_SIZE}|\d{{2}})"
_SIZE_LIST = re.compile(
    rf"\bsizes:?\s+(?P<list>{_SIZE_ITEM}(?:(?:,\s*|,?\s+(?:and|or)\s+){_SIZE_ITEM})*)\b"
)
_BOLD = re.compile(r"\*\*(?P<label>[^*\n]{2,120})\*\*")
_LINK_LABEL = re.compile(r"\[(?P<label>[^\[\]\n]{2,120})\]\([^()\s]*\)")
# Bold text that is no product name: a heading, a label, a size, an amount.
_NOT_A_NAME = re.compile(
    r"(?::$|^[\d€$.,\s%]+$|^(?:note|tip|price|sizes?|colou?rs?|stock)\b)", re.I
)


def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _colours_in(text: str, evidence: Evidence) -> list[tuple[int, str]]:
    found = []
    for colour in evidence.colours:
        for match in re.finditer(rf"\b{re.escape(colour)}\b", text, re.I):
            found.append((match.start(), colour))
    return sorted(found)


def _sizes_sorted(sizes: Iterable[str], evidence: Evidence) -> list[str]:
    order = {size: i for i, size in enumerate(evidence.sizes)}
    return sorted(set(sizes), key=lambda s: order.get(s, len(order)))


def _about(position: int, named: list[tuple[int, Product]], context: Product | None):
    """The product a claim at `position` is about: the nearest name before it, else context."""
    before = [product for at, product in named if at <= position]
    if before:
        return before[-1]
    return named[0][1] if named else context


@functools.lru_cache(maxsize=16)
def _colour_list_pattern(colours: tuple[str, ...]) -> re.Pattern:
    colour = "|".join(re.escape(c) for c in colours) or "(?!)"
    return re.compile(
        rf"\b(?:comes? in|available in|colou?rs?:?|in stock in)\s+(?P<list>(?:{colour})"
        rf"(?:(?:,\s*|,?\s+(?:and|or)\s+)(?:{colour}))+)\b",
        re.I,
    )


def _colour_list(text: str, evidence: Evidence) -> re.Match | None:
    return _colour_list_pattern(tuple(evidence.colours)).search(text)


def _availability_line(
    product: Product, evidence: Evidence, *, size: str | None, colour: str | None
) -> str:
    """What the data says of one product in a size and colour, as one sentence."""
    name = f"**{product.name}**"
    sizes = _sizes_sorted(product.sizes_in(colour) or [], evidence)
    if colour and colour not in product.colours:
        others = _and(sorted(product.colours)) or "no colour at the moment"
        return f"The {name} isn't in stock in {colour} right now; it comes in {others}."
    in_colour = f" in {colour}" if colour else ""
    if size and size not in sizes:
        other = f"sizes {_and(sizes)}" if sizes else "no size at the moment"
        return f"The {name} isn't in stock in size {size}{in_colour}; it comes in {other}."
    if size:
        left = product.stock_of(size=size, colour=colour)
        count = f" ({left} left)" if left else ""
        return f"The {name} is in stock in size {size}{in_colour}{count}."
    return f"The {name} is in stock{in_colour} in sizes {_and(sizes)}."


def sentence_check(sentence: str, evidence: Evidence, *, context: Product | None) -> Checked:
    """Check one sentence's claims; correct what the data can correct, else drop it."""
    claims: list[Claim] = []
    text = sentence
    named = evidence.named(text)

    # Product names given as results: bold or linked labels must be products of this turn.
    for match in list(_BOLD.finditer(text)) + list(_LINK_LABEL.finditer(text)):
        label = match.group("label").strip()
        if _NOT_A_NAME.search(label) or label.lower() in evidence.colours:
            continue
        if label in evidence.sizes or not re.search(r"[A-Z]", label):
            continue
        if evidence.by_name(label) is not None or any(
            name_plain(p.name) in name_plain(label) for _, p in named
        ):
            claims.append(Claim("name", "backed"))
            continue
        claims.append(Claim("name", "dropped"))
        return Checked(text="", claims=claims, dropped="name")

    negative = bool(_NEGATIVE.search(text))
    colours = _colours_in(text, evidence)
    one_colour = colours[0][1] if len({c for _, c in colours}) == 1 else None
    size_match = _SIZE_MENTION.search(text)
    size = size_match.group("size") if size_match else None
    if size is not None and size not in evidence.sizes:
        size = None

    # Money amounts.
    for match in reversed(list(_AMOUNT.finditer(text))):
        raw = match.group("a") or match.group("b")
        amount = float(raw.replace(",", "."))
        if evidence.amount_backed(amount):
            claims.append(Claim("price", "backed"))
            continue
        product = _about(match.start(), named, context)
        is_limit = bool(_LIMIT_BEFORE.search(text[: match.start()]))
        # With two products named, an amount may be a sum of them: no one price corrects it.
        alone = len({p.sku for _, p in named}) <= 1
        if product is not None and product.price is not None and alone and not is_limit:
            fixed = f"€{product.price:.2f}"
            text = text[: match.start()] + fixed + text[match.end() :]
            claims.append(Claim("price", "corrected"))
            continue
        claims.append(Claim("price", "dropped"))
        return Checked(text="", claims=claims, dropped="price")
    named = evidence.named(text)

    # Stock counts.
    for match in reversed(list(_COUNT.finditer(text))):
        claimed = int(match.group("n") or match.group("m"))
        product = _about(match.start(), named, context)
        truth = product.stock_of(size=size, colour=one_colour) if product else None
        if truth is None:
            claims.append(Claim("stock", "dropped"))
            return Checked(text="", claims=claims, dropped="stock")
        if truth == claimed:
            claims.append(Claim("stock", "backed"))
            continue
        if truth == 0:
            claims.append(Claim("stock", "corrected"))
            line = _availability_line(product, evidence, size=size, colour=one_colour)
            return Checked(text=line + _trailing(sentence), claims=claims)
        group = "n" if match.group("n") else "m"
        start, end = match.span(group)
        text = text[:start] + str(truth) + text[end:]
        claims.append(Claim("stock", "corrected"))

    # Lists of sizes in stock.
    listed = _SIZE_LIST.search(text)
    sizes_listed = listed is not None
    if listed:
        product = _about(listed.start(), named, context)
        said = re.findall(_SIZE_ITEM, listed.group("list"))
        truth = product.sizes_in(one_colour) if product else None
        if truth is None:
            claims.append(Claim("sizes", "dropped"))
            return Checked(text="", claims=claims, dropped="sizes")
        if negative or all(s in truth for s in said):
            claims.append(Claim("sizes", "backed"))
        elif truth:
            start, end = listed.span("list")
            text = text[:start] + _and(_sizes_sorted(truth, evidence)) + text[end:]
            claims.append(Claim("sizes", "corrected"))
        else:
            claims.append(Claim("sizes", "corrected"))
            line = _availability_line(product, evidence, size=None, colour=one_colour)
            return Checked(text=line + _trailing(sentence), claims=claims)

    # Lists of colours.
    listed = _colour_list(text, evidence)
    if listed is not None:
        product = _about(listed.start(), named, context)
        said = [c for _, c in _colours_in(listed.group("list"), evidence)]
        if product is None:
            claims.append(Claim("colours", "dropped"))
            return Checked(text="", claims=claims, dropped="colours")
        if all(c in product.colours for c in said):
            claims.append(Claim("colours", "backed"))
        elif product.colours:
            start, end = listed.span("list")
            text = text[:start] + _and(sorted(product.colours)) + text[end:]
            claims.append(Claim("colours", "corrected"))
        else:
            claims.append(Claim("colours", "dropped"))
            return Checked(text="", claims=claims, dropped="colours")

    # Availability of a product in a size and/or colour, said positively.
    elif not sizes_listed and (size or one_colour) and _AVAILABLE.search(text) and not negative:
        product = _about((size_match.start() if size_match else colours[0][0]), named, context)
        if product is not None:
            if one_colour and one_colour not in product.colours:
                backed = False
            elif size:
                sizes = product.sizes_in(one_colour)
                backed = sizes is not None and size in sizes
            else:
                backed = True
            if backed:
                claims.append(Claim("availability", "backed"))
            else:
                claims.append(Claim("availability", "corrected"))
                line = _availability_line(product, evidence, size=size, colour=one_colour)
                return Checked(text=line + _trailing(sentence), claims=claims)
    return Checked(text=text, claims=claims)


def _trailing(sentence: str) -> str:
    return sentence[len(sentence.rstrip()) :]


# --- streaming ----------------------------------------------------------------------------

# A sentence ends at . ! or ? before white space, or at a line break (a list line).
_BOUNDARY = re.compile(r"[.!?](?=\s)\s*|\n\s*")
# Held longer than this without a sentence's end, text is released a clause at a time.
MAX_HELD_CHARS = 160


def _cut_at(text: str) -> int:
    """Where to cut a sentence too long to hold: after its last clause, else its last word."""
    window = text[:MAX_HELD_CHARS]
    clause = max(window.rfind(mark) for mark in (", ", "; ", ": ", " — "))
    if clause > 0:
        return clause + 2
    space = window.rfind(" ")
    return space + 1 if space > 0 else MAX_HELD_CHARS


@dataclass
class GroundingReport:
    """Counts per verdict and per kind, for the inspector and the chat record."""

    claims: list[Claim] = field(default_factory=list)
    check_ms: float = 0.0

    def counts(self) -> dict[str, int]:
        result = {"checked": len(self.claims), "backed": 0, "corrected": 0, "dropped": 0}
        for claim in self.claims:
            result[claim.verdict] += 1
        return result

    def span_name(self) -> str:
        """The verdicts as the inspector's timeline names them."""
        counts = self.counts()
        return (
            f"grounding: {counts['checked']} claims, {counts['corrected']} corrected, "
            f"{counts['dropped']} dropped"
        )

    def by_kind(self) -> dict[str, dict[str, int]]:
        kinds: dict[str, dict[str, int]] = {}
        for claim in self.claims:
            kinds.setdefault(claim.kind, {}).setdefault(claim.verdict, 0)
            kinds[claim.kind][claim.verdict] += 1
        return kinds


class AnswerGrounder:
    """Hold streamed text until a sentence is complete, check it, then release it."""

    def __init__(self, evidence: Evidence, report: GroundingReport | None = None) -> None:
        self.evidence = evidence
        self.report = report if report is not None else GroundingReport()
        self._held = ""
        self._context: Product | None = None
        self._said: set[Kind] = set()

    def feed(self, text: str) -> str:
        self._held += text
        out: list[str] = []
        while True:
            boundary = _BOUNDARY.search(self._held)
            # White space at the very end may go on: wait for what follows it.
            if boundary is None or boundary.end() == len(self._held):
                break
            sentence, self._held = self._held[: boundary.end()], self._held[boundary.end() :]
            out.append(self._check(sentence))
        if len(self._held) > MAX_HELD_CHARS:
            # A sentence that will not end (a model that never stops one) still streams: it is
            # checked and released in pieces, cut after a clause where one ends.
            cut = _cut_at(self._held)
            piece, self._held = self._held[:cut], self._held[cut:]
            out.append(self._check(piece))
        return "".join(out)

    def flush(self) -> str:
        sentence, self._held = self._held, ""
        return self._check(sentence) if sentence else ""

    def _check(self, sentence: str) -> str:
        started = time.perf_counter()
        if not sentence.strip():
            return sentence
        context = self._context or self._only_product()
        checked = sentence_check(sentence, self.evidence, context=context)
        self.report.claims.extend(checked.claims)
        named = self.evidence.named(checked.text)
        if named:
            self._context = named[-1][1]
        self.report.check_ms += (time.perf_counter() - started) * 1000
        if checked.dropped is None:
            return checked.text
        if checked.dropped in self._said:
            return ""
        self._said.add(checked.dropped)
        return DROPPED_LINES[checked.dropped] + _trailing(sentence)

    def _only_product(self) -> Product | None:
        products = list(self.evidence.products.values())
        return products[0] if len(products) == 1 else None


def answer_ground(text: str, evidence: Evidence) -> tuple[str, GroundingReport]:
    """The whole answer checked at once (the same result as streaming it)."""
    grounder = AnswerGrounder(evidence)
    checked = grounder.feed(text) + grounder.flush()
    return checked, grounder.report
