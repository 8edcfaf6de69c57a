"""The page the shopper is on, as the system message describes it."""

from __future__ import annotations

from llm.offline.assistant.words import free_words
from llm.offline.shopper import ShopperRequest
from llm.offline.vocabulary import Vocabulary
from llm.transcript import ShownProduct


def page_product(page: dict | None) -> ShownProduct | None:
    product = (page or {}).get("product") if (page or {}).get("kind") == "product" else None
    if not isinstance(product, dict) or not product.get("sku") or not product.get("name"):
        return None
    price = product.get("price_eur")
    return ShownProduct(
        name=str(product["name"]),
        sku=str(product["sku"]),
        colours=tuple(str(c) for c in product.get("colours") or []),
        sizes=tuple(str(s) for s in product.get("sizes_in_stock") or []),
        price_eur=float(price) if isinstance(price, int | float) else None,
    )


def page_request(page: dict | None, vocabulary: Vocabulary) -> ShopperRequest | None:
    """A catalog page's filters as a search, keeping only values the catalog knows."""
    if not page or page.get("kind") != "catalog" or not isinstance(page.get("filters"), dict):
        return None
    filters = page["filters"]

    def known(value: object, choices: list[str]) -> str | None:
        lowered = {choice.lower(): choice for choice in choices}
        return lowered.get(str(value).strip().lower()) if value else None

    category = known(filters.get("category"), vocabulary.categories)
    colour = known(filters.get("colour"), vocabulary.colours)
    price = filters.get("max_price")
    request = ShopperRequest(
        categories=[category] if category else [],
        colours=[colour] if colour else [],
        size=known(filters.get("size"), vocabulary.sizes),
        brand=known(filters.get("brand"), vocabulary.brands),
        max_price=float(price) if isinstance(price, int | float) and price > 0 else None,
    )
    query = str(filters.get("q") or "").strip()
    if query:
        request.occasions = free_words(query.lower())
    return request if request.has_criteria() else None
