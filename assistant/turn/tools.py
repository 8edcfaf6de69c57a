"""The assistant's tools: the catalog (the only source of prices, SKUs and sizes) and memory.

Each tool is one object: its name, description, parameters (built from the catalog's
vocabulary) and implementation together. Arguments come from a model and are untrusted:
each is checked against the schema the model was given, and any problem becomes a tool
result the model can read, never a crash. Catalog reads run through Channels'
`database_sync_to_async`, the rule for ORM work on the websocket path.

The schema names each vocabulary once (an exclusion list takes the values of the field it
excludes from) and is the same on every turn for one catalog, so it adds as little as it
can to each request and a provider's prompt cache can keep it.

Results, as the model reads them (and as checks of answers against them may rely on):
- search_products: {"products": [card...], "count": n, "total": matches in all, "offset": k},
  a card being CARD_KEYS; with a colour filter a card's colours and sizes are that colour's.
- get_product: a card plus "description" and "variants" [{"sku", "colour", "size", "stock"}]
  (in-stock only); with a colour, "colour_in_stock" and, when true, that colour's sizes
  and variants.
- recall_memory: {"notes": fenced notes text, "count": n}; when the search failed, an error
  (the activity line "memory unavailable"), never a count of 0.
- any failure: {"error": "..."}.
The model reads each result as `tool_result_text` writes it: compact JSON without the
products' page addresses, which only the cards under the answer show (and link).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from llm.cards import MAX_CARDS
from memoryapp.public import MemoryUnavailable, notes_message
from shop.numbers import NumberRefused, number_checked, price_limit_checked
from shop.selectors import (
    CATALOG_FILTER_NAMES,
    CatalogFilters,
    catalog_vocabulary,
    product_get,
    products_page,
)

MAX_LIMIT = 10
MAX_OFFSET = 10_000  # "show more" a thousand times over
# A panel shows at most this many cards under an answer, so a search returns that many
# unless the model asks for more; "show more" asks for the next page with `offset`.
DEFAULT_LIMIT = MAX_CARDS
CARD_KEYS = (
    "sku",
    "name",
    "brand",
    "category",
    "price_eur",
    "colours",
    "sizes_in_stock",
    "url",
    "blurb",
)
_SEARCH_KEYS = CATALOG_FILTER_NAMES | {"offset", "limit"}
# What a result carries for the cards and checks but the model never needs: a card links
# its product itself, and the answer is told not to repeat what a card shows.
_NOT_FOR_MODEL = frozenset({"url"})


class ToolArgumentError(ValueError):
    pass


@dataclass
class ToolOutcome:
    """What a tool call gave: the model's result, the activity line, cards, recalled lines."""

    content: dict[str, Any]
    summary: str
    products: list[dict[str, Any]] = field(default_factory=list)
    # recall_memory only: the recalled items (RecalledItem.as_dict()), for the inspector.
    items: list[dict[str, Any]] = field(default_factory=list)


def _string(args: dict, name: str, *, choices: list[str] | None = None) -> str | None:
    value = args.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolArgumentError(f"{name} must be a string")
    value = value.strip()
    if choices is not None:
        lowered = {c.lower(): c for c in choices}
        if value.lower() not in lowered:
            raise ToolArgumentError(f"{name} must be one of: {', '.join(choices)}")
        return lowered[value.lower()]
    return value


def _choices(args: dict, name: str, choices: list[str]) -> list[str]:
    values = args.get(name) or []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ToolArgumentError(f"{name} must be a list of strings")
    lowered = {c.lower(): c for c in choices}
    bad = [v for v in values if v.strip().lower() not in lowered]
    if bad:
        raise ToolArgumentError(f"{name}: unknown values {', '.join(bad)}")
    return [lowered[v.strip().lower()] for v in values]


def _integer(args: dict, name: str, *, default: int, low: int, high: int) -> int:
    value = args.get(name)
    if value is None:
        return default
    return int(number_checked(value, name=name, low=low, high=high, whole=True))


def search_arguments(args: dict, *, vocabulary: dict[str, list[str]]) -> dict[str, Any]:
    unknown = set(args) - _SEARCH_KEYS
    if unknown:
        raise ToolArgumentError(f"unknown arguments: {', '.join(sorted(unknown))}")
    max_price = args.get("max_price")
    if max_price is not None:
        max_price = price_limit_checked(max_price)
    return {
        "query": _string(args, "query") or "",
        "category": _string(args, "category", choices=vocabulary["categories"]),
        "exclude_categories": _choices(args, "exclude_categories", vocabulary["categories"]),
        "colour": _string(args, "colour", choices=vocabulary["colours"]),
        "exclude_colours": _choices(args, "exclude_colours", vocabulary["colours"]),
        "size": _string(args, "size", choices=vocabulary["sizes"]),
        "brand": _string(args, "brand", choices=vocabulary["brands"]),
        "max_price": max_price,
        "material": _string(args, "material", choices=vocabulary.get("materials", [])),
        "offset": _integer(args, "offset", default=0, low=0, high=MAX_OFFSET),
        "limit": _integer(args, "limit", default=DEFAULT_LIMIT, low=1, high=MAX_LIMIT),
    }


def search_summary(*, count: int, total: int) -> str:
    """The activity line: "4 of 12 products", or "3 products" when that is all of them."""
    noun = "product" if total == 1 else "products"
    return f"{count} {noun}" if count == total else f"{count} of {total} {noun}"


def tool_result_text(content: dict[str, Any]) -> str:
    """A tool's result as the model reads it: only what an answer is written from, compact.

    Every key but the page addresses stays, so what the answer is checked against
    (`ToolOutcome.content`) is what the model was given.
    """

    def lean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: lean(v) for k, v in value.items() if k not in _NOT_FOR_MODEL}
        if isinstance(value, list):
            return [lean(item) for item in value]
        return value

    return json.dumps(lean(content), ensure_ascii=False, separators=(",", ":"), default=str)


def _card(product: dict[str, Any]) -> dict[str, Any]:
    return {key: product[key] for key in CARD_KEYS}


def _in_colour(product: dict[str, Any], colour: str) -> dict[str, Any]:
    """The product as seen in one colour, so the answer and its card describe the same thing.

    A colour not in stock leaves the product whole, marked, so the model can say which
    colours there are instead.
    """
    variants = [v for v in product["variants"] if v["colour"] == colour]
    if not variants:
        return {**product, "colour_in_stock": False}
    sizes = [v["size"] for v in product["variants"] if v["colour"] == colour]
    return {
        **product,
        "colours": [colour],
        "sizes_in_stock": [s for s in product["sizes_in_stock"] if s in sizes],
        "variants": variants,
        "colour_in_stock": True,
    }


Vocabulary = dict[str, list[str]]
Recall = Callable[[str], Awaitable[list[Any]]]


@dataclass(frozen=True)
class Tool:
    """One tool a model may call: what it is called, what it does, its parameters, its code."""

    name: str
    description: str
    parameters: Callable[[Vocabulary], dict[str, Any]]
    run: Callable[[dict[str, Any], Vocabulary, Recall | None], Awaitable[ToolOutcome]]

    def schema(self, vocabulary: Vocabulary) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters(vocabulary),
            },
        }


def _enum(values: list[str]) -> dict[str, Any]:
    return {"type": "string", "enum": values}


def _price_description() -> str:
    """The currency prices are in, and the shop's rates for budgets said in another."""
    rates = getattr(settings, "SHOP_EXCHANGE_RATES", {}) or {}
    if not rates:
        return "EUR."
    said = ", ".join(f"1 {code} = {rate:g} EUR" for code, rate in sorted(rates.items()))
    return f"EUR. A budget in another currency converts at the shop's rates: {said}."


def _search_parameters(vocabulary: Vocabulary) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "query": {
            "type": "string",
            "description": (
                "Words no other filter says: style, fabric, feature. If none is found:"
                " products empty, alternatives = other filters' finds (say so first)."
            ),
        },
        "category": _enum(vocabulary["categories"]),
        "exclude_categories": {"type": "array", "items": {"type": "string"}},
        "colour": _enum(vocabulary["colours"]),
        "exclude_colours": {"type": "array", "items": {"type": "string"}},
        "size": {**_enum(vocabulary["sizes"]), "description": "In stock in this size."},
        "brand": _enum(vocabulary["brands"]),
        "max_price": {"type": "number", "minimum": 0, "description": _price_description()},
    }
    if vocabulary.get("materials"):
        properties["material"] = _enum(vocabulary["materials"])
    properties["offset"] = {
        "type": "integer",
        "minimum": 0,
        "description": "Show more: previous offset + count.",
    }
    properties["limit"] = {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}
    return {"type": "object", "properties": properties, "additionalProperties": False}


async def _search_run(args: dict, vocabulary: Vocabulary, recall: Recall | None) -> ToolOutcome:
    query = search_arguments(args, vocabulary=vocabulary)
    offset, limit = query.pop("offset"), query.pop("limit")
    page = await database_sync_to_async(products_page)(
        filters=CatalogFilters(**query), offset=offset, limit=limit
    )
    products = [hit.as_dict() for hit in page.hits]
    content: dict[str, Any] = {
        "products": products,
        "count": len(products),
        "total": page.total,
        "offset": page.offset,
    }
    if page.unmatched_words:
        content["unmatched_words"] = page.unmatched_words
    alternatives = [hit.as_dict() for hit in page.alternatives]
    if alternatives:
        # Not what was asked for: the answer must say so before offering them.
        content["alternatives"] = alternatives
    return ToolOutcome(
        content,
        search_summary(count=len(products), total=page.total),
        # Cards only for what was asked for: an answer that offers the alternatives names
        # them as such in its words, and one that does not shows no card of them.
        [_card(p) for p in products],
    )


def _product_parameters(vocabulary: Vocabulary) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "colour": {"type": "string"}},
        "required": ["sku"],
        "additionalProperties": False,
    }


async def _product_run(args: dict, vocabulary: Vocabulary, recall: Recall | None) -> ToolOutcome:
    unknown = set(args) - {"sku", "colour"}
    if unknown:
        raise ToolArgumentError(f"unknown arguments: {', '.join(sorted(unknown))}")
    sku = _string(args, "sku")
    if not sku:
        raise ToolArgumentError("sku is required")
    colour = _string(args, "colour", choices=vocabulary["colours"])
    detail = await database_sync_to_async(product_get)(sku=sku)
    if detail is None:
        return ToolOutcome(
            {"error": f"no product with SKU {sku} (it may have been withdrawn)"}, "not found"
        )
    product = detail.as_dict()
    if colour:
        product = _in_colour(product, colour.lower())
    return ToolOutcome(product, detail.name, [_card(product)])


def _recall_parameters(vocabulary: Vocabulary) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "additionalProperties": False,
    }


async def _recall_run(args: dict, vocabulary: Vocabulary, recall: Recall | None) -> ToolOutcome:
    if recall is None:
        return ToolOutcome({"error": "unknown tool recall_memory"}, "unknown tool")
    query = _string(args, "query")
    if not query:
        raise ToolArgumentError("query is required")
    try:
        found = [item.defused() for item in await recall(query)]
    except MemoryUnavailable:
        # Not "0 notes": the model must not tell the shopper nothing is remembered.
        return ToolOutcome(
            {"error": "memory could not be searched just now; nothing is known either way"},
            "memory unavailable",
        )
    lines = [item.line for item in found]
    items = [item.as_dict() for item in found]
    # Fenced and marked untrusted exactly like the notes: a recalled line is data, never an
    # instruction, and never carries a tool result's authority.
    return ToolOutcome(
        {"notes": notes_message(lines) or "", "count": len(lines)},
        f"{len(lines)} note{'s' if len(lines) != 1 else ''}",
        items=items,
    )


SEARCH_PRODUCTS = Tool(
    name="search_products",
    description=(
        "In-stock products (EUR price, colours, sizes in stock, blurb), total matches and "
        "offset. Exclusion lists take category and colour values."
    ),
    parameters=_search_parameters,
    run=_search_run,
)
GET_PRODUCT = Tool(
    name="get_product",
    description=(
        "One product by SKU with its in-stock variants; with a colour, only that colour's, "
        "and colour_in_stock."
    ),
    parameters=_product_parameters,
    run=_product_run,
)
RECALL_MEMORY = Tool(
    name="recall_memory",
    description="Search the shopper's earlier visits: leads, to check with a catalog tool.",
    parameters=_recall_parameters,
    run=_recall_run,
)
CATALOG_TOOLS = (SEARCH_PRODUCTS, GET_PRODUCT)
TOOLS = {tool.name: tool for tool in (*CATALOG_TOOLS, RECALL_MEMORY)}


def tool_schemas(*, vocabulary: Vocabulary, with_memory: bool) -> list[dict]:
    """OpenAI tool definitions, the same for every turn of one catalog and memory mode."""
    tools = [*CATALOG_TOOLS, RECALL_MEMORY] if with_memory else list(CATALOG_TOOLS)
    return [tool.schema(vocabulary) for tool in tools]


async def tool_run(
    *, name: str, raw_arguments: str, vocabulary: Vocabulary, recall: Recall | None
) -> ToolOutcome:
    """Run one tool call; every failure is reported to the model as {"error": ...}."""
    try:
        args = json.loads(raw_arguments or "{}")
    # Not only JSONDecodeError: an integer of over 4,300 digits is a plain ValueError, deep
    # nesting a RecursionError.
    except (ValueError, RecursionError):
        return ToolOutcome({"error": "arguments were not valid JSON"}, "invalid arguments")
    if not isinstance(args, dict):
        return ToolOutcome({"error": "arguments must be a JSON object"}, "invalid arguments")
    tool = TOOLS.get(name)
    if tool is None:
        return ToolOutcome({"error": f"unknown tool {name}"}, "unknown tool")
    try:
        return await tool.run(args, vocabulary, recall)
    except (ToolArgumentError, NumberRefused) as exc:  # NumberRefused: shop.numbers' rule
        return ToolOutcome({"error": str(exc)}, "invalid arguments")


async def vocabulary_load() -> Vocabulary:
    return await database_sync_to_async(catalog_vocabulary)()
