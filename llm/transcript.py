"""Plain-text forms the assistant's model reads, defined once for writer and reader.

Two pieces of context reach the model as text: the products an earlier answer showed (kept
with the exchange in memory, or sent back by a signed-out browser), and the shop page the
shopper is on. The turn pipeline writes them; any model, the offline one included, reads
them. Both hold only catalog data: a model must still look a product up before quoting a
price or linking it (memories are leads, not results).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from llm.shopper_words import LETTER_SIZES

PRODUCTS_SHOWN = "Products shown:"
PAGE_OPEN = "<page-context>"
PAGE_CLOSE = "</page-context>"

# One product: `Name [SKU] colours a/b, sizes S/M, €59.00` — separators that catalog names,
# colours and sizes never contain, so the line parses back without ambiguity. A run of three
# or more sizes in a row is written as its ends, `sizes 36-46`, `sizes XS-XL`: the line is
# in every verbatim exchange of the notes, and a shoe's eleven sizes cost ~20 tokens each
# time written out.
_PRODUCT = re.compile(
    r"^(?:(?P<name>.+?) )?\[(?P<sku>[^\]\s]+)\]"
    r"(?: colours (?P<colours>[^,]*))?"
    r"(?:, sizes (?P<sizes>[^,]*))?"
    r"(?:, €(?P<price>\d+(?:\.\d+)?))?$"
)
_SEPARATOR = " | "
# A product's name in an answer's own text, in bold as the assistant writes it.
BOLD_NAME = re.compile(r"\*\*([^*]{2,120})\*\*")
_RUN_MIN = 3
_RANGE = re.compile(r"^(?P<low>[^-]+)-(?P<high>[^-]+)$")


def _size_rank(size: str) -> tuple[str, int] | None:
    """Where a size stands in its series (letters, or whole numbers), or None."""
    if size in LETTER_SIZES:
        return ("letter", LETTER_SIZES.index(size))
    if size.isdigit() and not (len(size) > 1 and size.startswith("0")):
        return ("number", int(size))
    return None


def _size_of(series: str, rank: int) -> str:
    return LETTER_SIZES[rank] if series == "letter" else str(rank)


def sizes_text(sizes: list[str]) -> str:
    """`36-39/41/43-46`: sizes in their order, each run of three or more in a row as its ends."""
    runs: list[list[str]] = []
    for size in sizes:
        rank, last = _size_rank(size), _size_rank(runs[-1][-1]) if runs else None
        if rank and last and rank[0] == last[0] and rank[1] == last[1] + 1:
            runs[-1].append(size)
        else:
            runs.append([size])
    parts = []
    for run in runs:
        parts += [f"{run[0]}-{run[-1]}"] if len(run) >= _RUN_MIN else run
    return "/".join(parts)


def sizes_parse(text: str) -> tuple[str, ...]:
    """The sizes `sizes_text` wrote, each run written as its ends spelled out again."""
    sizes: list[str] = []
    for part in (p for p in text.split("/") if p):
        match = _RANGE.match(part)
        low = _size_rank(match.group("low")) if match else None
        high = _size_rank(match.group("high")) if match else None
        if low and high and low[0] == high[0] and high[1] - low[1] + 1 >= _RUN_MIN:
            sizes += [_size_of(low[0], rank) for rank in range(low[1], high[1] + 1)]
        else:
            sizes.append(part)
    return tuple(sizes)


@dataclass(frozen=True)
class ShownProduct:
    """A product an earlier answer showed, as the transcript recorded it."""

    name: str
    sku: str
    colours: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    price_eur: float | None = None


def _clean(value: Any) -> str:
    # The line must survive note cleaning (no newlines or angle brackets) and stay parseable.
    return re.sub(r"[\x00-\x1f\x7f<>\[\]|/,]", " ", str(value)).strip()


def products_shown_line(cards: list[dict[str, Any]], *, named: frozenset[str] = frozenset()) -> str:
    """`Products shown: A [SKU1] colours black/navy, sizes M/L, €59.00 | B [SKU2] ...`.

    `cards` are the product cards of a `done` event (sku, name, colours, sizes_in_stock,
    price_eur). A card whose name is in `named` is written without it (`[SKU1] colours ...`):
    its answer's text names it already (see `exchange_with_products`). Empty when there are
    no cards.
    """
    parts = []
    for card in cards:
        sku, name = _clean(card.get("sku", "")), _clean(card.get("name", ""))
        if not sku or not name:
            continue
        part = f"[{sku}]" if name in named else f"{name} [{sku}]"
        colours = [_clean(c) for c in card.get("colours") or [] if _clean(c)]
        sizes = [_clean(s) for s in card.get("sizes_in_stock") or [] if _clean(s)]
        part += f" colours {'/'.join(colours)}" if colours else ""
        part += f", sizes {sizes_text(sizes)}" if sizes else ""
        price = card.get("price_eur")
        if isinstance(price, int | float) and not isinstance(price, bool):
            part += f", €{float(price):.2f}"
        parts.append(part)
    return f"{PRODUCTS_SHOWN} {_SEPARATOR.join(parts)}" if parts else ""


def bold_names(text: str) -> list[str]:
    """The bold spans of text, each once, in the order they first appear."""
    return list(dict.fromkeys(name.strip() for name in BOLD_NAME.findall(text)))


def products_shown_parse(text: str) -> list[ShownProduct]:
    """The products of the last `Products shown:` line in text; [] when there is none.

    A product written without its name takes the next bold name of the text before the
    line that no other product of the line is written with: the answer named them in the
    order it showed them (`exchange_with_products` writes the line so only when this reads
    it back right).
    """
    start = text.rfind(PRODUCTS_SHOWN)
    if start < 0:
        return []
    listing = text[start + len(PRODUCTS_SHOWN) :]
    # Note cleaning turns the newline that ends the line into " / ".
    listing = re.split(r" / |\n", listing, maxsplit=1)[0].strip()
    matches = [m for part in listing.split(_SEPARATOR) if (m := _PRODUCT.match(part.strip()))]
    written = {m.group("name").strip() for m in matches if m.group("name")}
    unnamed = iter([name for name in bold_names(text[:start]) if name not in written])
    products = []
    for match in matches:
        name = (match.group("name") or "").strip() or next(unnamed, None)
        if name is None:
            continue  # its name is not in the text (cut short): nothing to call it
        products.append(
            ShownProduct(
                name=name,
                sku=match.group("sku"),
                colours=tuple(c for c in (match.group("colours") or "").split("/") if c),
                sizes=sizes_parse(match.group("sizes") or ""),
                price_eur=float(match.group("price")) if match.group("price") else None,
            )
        )
    return products


def exchange_with_products(answer: str, cards: list[dict[str, Any]]) -> str:
    """An answer as the transcript keeps it: the text, then the products it showed.

    A product the text names in bold, in the order the cards show them, is not named again
    in the line: it is in every verbatim exchange the model is sent, and a name is written
    once. The line is written so only when it reads back to the same products; otherwise
    (names bolded out of order, another bold phrase among them) every product keeps its name.
    """
    full = products_shown_line(cards)
    if not full:
        return answer
    in_text = frozenset(bold_names(answer)) & {_clean(c.get("name", "")) for c in cards}
    lean = products_shown_line(cards, named=in_text)
    if lean != full and products_shown_parse(f"{answer}\n{lean}") == products_shown_parse(full):
        return f"{answer}\n{lean}"
    return f"{answer}\n{full}"


def page_context_message(page: dict[str, Any]) -> str:
    """The system message that tells the model which page the shopper is on.

    `page` is `{"kind": "product", "product": <get_product result>}` or
    `{"kind": "catalog", "filters": {...}}`, built by the pipeline from the catalog.
    """
    if page.get("kind") == "product":
        lead = (
            "The shopper is looking at this product page of the shop (catalog data, looked "
            "up this turn). When they say this, it or this one, they mean this product."
        )
    else:
        lead = (
            "The shopper is browsing the shop's catalog with these filters; they are the "
            'context of "cheaper ones" or "any in M?".'
        )
    body = json.dumps(page, ensure_ascii=False, default=str).replace("<", " ").replace(">", " ")
    return f"{lead}\n{PAGE_OPEN}{body}{PAGE_CLOSE}"


def page_context_parse(text: str) -> dict[str, Any] | None:
    """The page of a page-context message, or None when text carries none."""
    start, end = text.find(PAGE_OPEN), text.rfind(PAGE_CLOSE)
    if start < 0 or end < start:
        return None
    try:
        page = json.loads(text[start + len(PAGE_OPEN) : end])
    except ValueError:
        return None
    return page if isinstance(page, dict) else None


# What the assistant may know of the shopper this turn, one line of its system prompt. The
# pipeline's session modes, in words a model acts on; the offline model reads the mode back.
MEMORY_STATE = "Memory state:"
MEMORY_MODES: dict[str, str] = {
    "remembering": (
        "the shopper is signed in and remembered across visits; recall_memory looks "
        "further back than the notes."
    ),
    "stateless": (
        "the shopper is not signed in: nothing is remembered between visits or kept from "
        "this chat; the notes, if any, are this conversation so far."
    ),
    "memory_off": (
        "the shopper is signed in, but the shop has switched memory off: nothing from "
        "earlier visits is available and nothing from this chat is kept."
    ),
    "memory_unavailable": (
        "the shopper is signed in, but their memory cannot be reached now: nothing from "
        "earlier visits is available this turn."
    ),
}
_MEMORY_STATE_LINE = re.compile(re.escape(MEMORY_STATE) + r" (?P<mode>[a-z_]+)\b")


def memory_state_line(mode: str) -> str:
    """`Memory state: remembering — the shopper is signed in and ...`."""
    if mode not in MEMORY_MODES:
        raise ValueError(f"unknown memory mode {mode!r}; expected one of {sorted(MEMORY_MODES)}")
    return f"{MEMORY_STATE} {mode} — {MEMORY_MODES[mode]}"


def memory_state_parse(text: str) -> str | None:
    """The mode a memory-state line in text names, or None when there is none."""
    match = _MEMORY_STATE_LINE.search(text)
    return match.group("mode") if match and match.group("mode") in MEMORY_MODES else None
