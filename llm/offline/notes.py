"""Read the recalled-memory notes the assistant is sent, and its own earlier answers.

Line formats (a fixed contract with the memory code), one per line inside the fence:
  [fact · stated 2026-05-01] The shopper wears size M.
  [earlier visit · 2026-04-12] <compressed exchange>
  [past visit summary · 2026-04-12 · unresolved] <episode summary>
  [this visit · earlier] <compressed older exchange of this session>
  [this visit] Shopper: <query> ‖ Assistant: <answer>
  [this visit · continued] <more of the exchange above, when it was longer than one line>
Everything in the fence is data: only these shapes are read, nothing is ever obeyed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm.prompts import NOTES_CLOSE, NOTES_OPEN

_LINE = re.compile(r"^\s*\[(?P<label>[^\]]{1,120})\]\s*(?P<body>.*)$")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_EXCHANGE = re.compile(
    r"^\s*Shopper:\s*(?P<query>.*?)\s*(?:‖|\|\|)\s*Assistant:\s*(?P<answer>.*)$", re.S
)
_BOLD = re.compile(r"\*\*(?P<name>[^*]{2,160})\*\*(?P<rest>[^*]*)")
_PRICE = re.compile(r"€\s*(\d{1,6}(?:\.\d{1,2})?)")
_COLOURS = re.compile(r"colou?rs?:\s*(?P<list>[a-z][a-z ,\-]*)", re.I)
_SIZES = re.compile(r"sizes? in stock:\s*(?P<list>[A-Za-z0-9][A-Za-z0-9, ]*)", re.I)
_SKU = re.compile(r"\bSKU\s+(?P<sku>[A-Z0-9][A-Z0-9\-]{1,40})")
_BRAND = re.compile(r"\bby\s+(?P<brand>[^·/\n]{2,40}?)\s*(?:·|—|$)")


@dataclass(frozen=True)
class Fact:
    date: str
    text: str
    order: int


@dataclass(frozen=True)
class Exchange:
    query: str
    answer: str


@dataclass(frozen=True)
class Memory:
    """A recalled line shown back to the shopper on request: a date and what happened."""

    date: str
    text: str


@dataclass
class Notes:
    facts: list[Fact] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    earlier: list[Memory] = field(default_factory=list)


@dataclass(frozen=True)
class ShownProduct:
    """A product as an earlier answer described it: a lead, to be checked with a tool."""

    name: str
    sku: str | None
    price: float | None
    colours: tuple[str, ...]
    sizes: tuple[str, ...]
    brand: str | None


def notes_parse(text: str) -> Notes:
    """Parse the fenced notes; lines of any other shape are ignored."""
    notes = Notes()
    for order, line in enumerate(_fenced(text).splitlines()):
        match = _LINE.match(line)
        if not match:
            continue
        parts = [part.strip().lower() for part in re.split(r"[·|]", match.group("label"))]
        body = match.group("body").strip()
        date = next((found.group(0) for found in map(_DATE.search, parts) if found), "")
        if parts[0] == "fact":
            notes.facts.append(Fact(date=date, text=body, order=order))
        elif parts[0] == "this visit" and len(parts) == 1:
            exchange = _EXCHANGE.match(body)
            if exchange:
                notes.exchanges.append(Exchange(exchange["query"], exchange["answer"]))
        elif parts == ["this visit", "continued"] and notes.exchanges:
            last = notes.exchanges[-1]
            notes.exchanges[-1] = Exchange(last.query, f"{last.answer} {body}")
        elif parts[0] in ("earlier visit", "past visit summary"):
            notes.earlier.append(Memory(date=date, text=body))
    return notes


def memory_line_parse(line: str) -> Memory:
    """Split a recalled line into its date and its text, for showing it to the shopper."""
    match = _LINE.match(line)
    if not match:
        return Memory(date="", text=line.strip())
    found = _DATE.search(match.group("label"))
    return Memory(date=found.group(0) if found else "", text=match.group("body").strip())


def answer_products(answer: str) -> list[ShownProduct]:
    """Read the products an earlier answer listed (bold name, then price, colours, SKU)."""
    products = []
    for match in _BOLD.finditer(answer):
        rest = match.group("rest")
        price = _PRICE.search(rest)
        sku = _SKU.search(rest)
        if not price and not sku:
            continue  # bold text that is not a product line
        colours = _COLOURS.search(rest)
        sizes = _SIZES.search(rest)
        brand = _BRAND.search(rest)
        products.append(
            ShownProduct(
                name=match.group("name").strip(),
                sku=sku.group("sku") if sku else None,
                price=float(price.group(1)) if price else None,
                colours=_items(colours.group("list")) if colours else (),
                sizes=_items(sizes.group("list")) if sizes else (),
                brand=brand.group("brand").strip() if brand else None,
            )
        )
    return products


def _fenced(text: str) -> str:
    start = text.find(NOTES_OPEN)
    if start < 0:
        return ""
    end = text.rfind(NOTES_CLOSE)
    return text[start + len(NOTES_OPEN) : end if end > start else len(text)]


def _items(listing: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in listing.split(",") if item.strip())
