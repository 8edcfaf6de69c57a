"""Plans relative to one product in view: cheaper than it, or similar to it."""

from __future__ import annotations

from dataclasses import replace

from llm.offline.assistant.conversation import Plan, State, refine
from llm.offline.assistant.page import page_product, page_request
from llm.offline.assistant.references import ORDINALS
from llm.offline.assistant.texts import CLARIFY_TEXT
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary


def cheaper_plan(
    state: State, parsed: ShopperRequest, page: dict | None, vocabulary: Vocabulary
) -> Plan:
    """Cheaper than what the shopper is looking at, keeping to what they asked for."""
    on_page = page_product(page)
    base = state.search or page_request(page, vocabulary)
    compared = state.shown
    if not compared and on_page is not None:
        compared = [on_page]
        category = (page or {}).get("product", {}).get("category")
        base = base or ShopperRequest(categories=[category] if category else [])
    if base is None and compared:
        # The search that showed them is out of sight: their names still say what they are.
        named = request_parse(" ".join(p.name for p in compared), vocabulary).categories
        base = ShopperRequest(categories=named[:1]) if len(set(named)) == 1 else None
    if base is None:
        return Plan(kind="text", text=CLARIFY_TEXT)
    request = refine(refine(base, state.picked), parsed)
    priced = [product for product in compared if product.price_eur is not None]
    below = min(priced, key=lambda p: p.price_eur) if priced else None
    if below is not None:
        request = replace(request, max_price=round(below.price_eur - 0.01, 2))
    return Plan(
        kind="search", request=request, below=below, on_page=below is not None and below is on_page
    )


def similar_plan(
    lowered: str, state: State, parsed: ShopperRequest, page: dict | None, vocabulary: Vocabulary
) -> Plan | None:
    """Like a product: its category, near its price (the answer ranks by that), never itself.

    The product is the one named or pointed at, else the only one in view, else the page's.
    """
    on_page = page_product(page)
    like = None
    for product in [*state.shown, *([on_page] if on_page else [])]:
        if product.name.lower() in lowered:
            like = product
    if like is None and state.shown:
        for pattern, position in ORDINALS:
            if pattern.search(lowered):
                like = state.shown[position] if position < len(state.shown) else state.shown[-1]
    if like is None:
        like = (
            on_page if on_page is not None else (state.shown[0] if len(state.shown) == 1 else None)
        )
    if like is None:
        return None
    category = None
    if like is on_page:
        category = (page or {}).get("product", {}).get("category")
    named = request_parse(like.name, vocabulary).categories
    category = category or (named[-1] if named else None)
    if category is None and state.search is not None:
        category = state.search.category
    known = {c.lower(): c for c in vocabulary.categories}
    category = known.get(str(category or "").lower())
    if category is None:
        return None
    request = refine(ShopperRequest(categories=[category]), parsed)
    return Plan(kind="search", request=request, like=like, on_page=like is on_page)
