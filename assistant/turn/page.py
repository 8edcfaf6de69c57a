"""Context the browser reports — the page the shopper is on, a signed-out conversation —
turned into what the model reads.

Both come from the browser and are trusted for nothing but a catalog lookup: a product page
is one `get_product` call (an unknown SKU is ignored), catalog filters are kept only where
the catalog knows the value, and the products a signed-out conversation showed are re-read
from the catalog by SKU, never taken from the browser's names or prices. The page's product
is looked up through the assistant's own tool, so the model sees exactly the shape a tool
call returns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async

from assistant.protocol.validation import HistoryExchange, PageRequest
from assistant.records.chat_facts import chat_fact_lines, chat_facts_read
from assistant.turn.tools import tool_run
from llm.transcript import exchange_with_products, page_context_message
from memoryapp.public import Exchange, notes_message
from shop.selectors import products_get

# Page filter names as the panel sends them -> the search_products argument they stand for,
# so a model can pass them straight on to a search. The free-text `q` is left out: words from
# a URL must not reach the model with the authority of a system message.
_FILTER_ARGUMENTS = {
    "category": "category",
    "colour": "colour",
    "size": "size",
    "brand": "brand",
    "max_price": "max_price",
}
_VOCABULARY_OF = {"category": "categories", "colour": "colours", "size": "sizes", "brand": "brands"}


@dataclass(frozen=True)
class PageContext:
    """The page as the model reads it, and the product it shows (looked up this turn)."""

    message: str | None = None
    product: dict[str, Any] | None = None
    linkable: list[dict[str, Any]] = field(default_factory=list)


async def product_lookup(
    *, sku: str, vocabulary: dict[str, list[str]]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The get_product result and card for a SKU, or None when the catalog has no such product."""
    outcome = await tool_run(
        name="get_product",
        raw_arguments=json.dumps({"sku": sku}),
        vocabulary=vocabulary,
        recall=None,
    )
    if not outcome.products:
        return None
    return outcome.content, outcome.products[0]


def catalog_filters_known(
    filters: dict[str, str | float], *, vocabulary: dict[str, list[str]]
) -> dict[str, str | float]:
    """Keep the filters the catalog understands, spelled as the catalog spells them."""
    known: dict[str, str | float] = {}
    for key, value in filters.items():
        argument = _FILTER_ARGUMENTS.get(key)
        if argument is None:
            continue
        if key in _VOCABULARY_OF:
            spelled = {v.lower(): v for v in vocabulary.get(_VOCABULARY_OF[key], [])}
            if str(value).lower() in spelled:
                known[argument] = spelled[str(value).lower()]
        else:
            known[argument] = value
    return known


async def page_context_build(
    *, page: PageRequest | None, vocabulary: dict[str, list[str]]
) -> PageContext:
    """The page-context message for this turn; empty when the page says nothing usable."""
    if page is None:
        return PageContext()
    if page.kind == "product" and page.sku:
        found = await product_lookup(sku=page.sku, vocabulary=vocabulary)
        if found is None:
            return PageContext()
        product, card = found
        return PageContext(
            message=page_context_message({"kind": "product", "product": product}),
            product=product,
            linkable=[card],
        )
    if page.kind == "catalog":
        filters = catalog_filters_known(page.filters, vocabulary=vocabulary)
        if filters:
            return PageContext(
                message=page_context_message({"kind": "catalog", "filters": filters})
            )
    return PageContext()


async def history_notes(
    *,
    history: Sequence[HistoryExchange],
    max_chars: int | None = None,
    said: Sequence[str] = (),
) -> str | None:
    """A signed-out conversation's last exchanges as the notes message's verbatim window,
    after the facts the shopper stated in it (`assistant.records.chat_facts`): in the history's
    messages and in `said`, the shopper's older ones.

    The products each answer showed are re-read from the catalog; a SKU the catalog no
    longer has (or never had) simply drops out of the line.
    """
    products = await database_sync_to_async(products_get)(
        skus=[sku for exchange in history for sku in exchange.skus]
    )
    # What the shopper said of themselves in this chat holds for its later turns.
    facts = chat_facts_read(messages=[*said, *(exchange.user for exchange in history)])
    lines: list[str] = chat_fact_lines(facts)
    for exchange in history:
        if not exchange.user and not exchange.assistant:
            continue
        shown: dict[str, dict[str, Any]] = {}
        for sku in exchange.skus:
            detail = products.get(sku.upper())
            if detail is not None:
                # A style SKU and one of its variants' SKUs are the same product.
                shown.setdefault(detail.sku, detail.as_dict())
        answer = exchange_with_products(exchange.assistant, list(shown.values()))
        lines.extend(Exchange(exchange.user, answer).note_lines(max_chars=max_chars))
    return notes_message(lines)
