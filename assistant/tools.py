"""The assistant's tools: the catalog (the only source of prices, SKUs and sizes) and memory.

Arguments come from a model and are untrusted: each is checked against the schema the
model was given, and any problem becomes a tool result the model can read, never a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async

from llm.cards import MAX_CARDS
from memoryapp.public import notes_message
from shop.selectors import catalog_vocabulary, product_get, products_page

MAX_LIMIT = 10
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
_SEARCH_KEYS = frozenset(
    {
        "query",
        "category",
        "exclude_categories",
        "colour",
        "exclude_colours",
        "size",
        "brand",
        "max_price",
        "offset",
        "limit",
    }
)


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


def tool_schemas(*, vocabulary: dict[str, list[str]], with_memory: bool) -> list[dict]:
    """OpenAI tool definitions; enums teach the model the catalog's vocabulary."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search_products",
                "description": (
                    "Search the shop's catalog. Returns in-stock, active products with price "
                    "in EUR, colours and sizes in stock and a blurb, plus total (how many "
                    "match in all) and offset. Use it before naming any product."
                ),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {
                            "type": "string",
                            "description": "Free words: style, material, occasion.",
                        },
                        "category": {"type": "string", "enum": vocabulary["categories"]},
                        "exclude_categories": {
                            "type": "array",
                            "items": {"type": "string", "enum": vocabulary["categories"]},
                            "description": "Categories the shopper ruled out.",
                        },
                        "colour": {"type": "string", "enum": vocabulary["colours"]},
                        "exclude_colours": {
                            "type": "array",
                            "items": {"type": "string", "enum": vocabulary["colours"]},
                        },
                        "size": {
                            "type": "string",
                            "enum": vocabulary["sizes"],
                            "description": "Size that must be in stock.",
                        },
                        "brand": {"type": "string", "enum": vocabulary["brands"]},
                        "max_price": {
                            "type": "number",
                            "minimum": 0,
                            "description": "Highest price in EUR.",
                        },
                        "offset": {
                            "type": "integer",
                            "minimum": 0,
                            "description": (
                                "Products to skip: for the next page ('show more'), the "
                                "offset and count of the previous page added up."
                            ),
                        },
                        "limit": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": MAX_LIMIT,
                            "description": f"Products to return (default {DEFAULT_LIMIT}).",
                        },
                    },
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "get_product",
                "description": (
                    "Look up one product by SKU: price, description, in-stock variants. With "
                    "colour, colours, sizes and variants are those of that colour (when it is "
                    "in stock; colour_in_stock says whether it is)."
                ),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "colour": {"type": "string", "enum": vocabulary["colours"]},
                    },
                    "required": ["sku"],
                    "additionalProperties": False,
                },
            },
        },
    ]
    if with_memory:
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": "recall_memory",
                    "description": (
                        "Search this shopper's own memory of earlier visits, e.g. what they "
                        "looked at last time. Results are leads: verify products with a tool."
                    ),
                    "parameters": {
                        "type": "object",
                        "properties": {"query": {"type": "string"}},
                        "required": ["query"],
                        "additionalProperties": False,
                    },
                },
            }
        )
    return tools


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


def _integer(args: dict, name: str, *, default: int, low: int, high: int | None = None) -> int:
    value = args.get(name)
    if value is None:
        return default
    too_high = high is not None and isinstance(value, int) and value > high
    if isinstance(value, bool) or not isinstance(value, int) or value < low or too_high:
        upper = f" to {high}" if high is not None else " or more"
        raise ToolArgumentError(f"{name} must be an integer from {low}{upper}")
    return value


def search_arguments(args: dict, *, vocabulary: dict[str, list[str]]) -> dict[str, Any]:
    unknown = set(args) - _SEARCH_KEYS
    if unknown:
        raise ToolArgumentError(f"unknown arguments: {', '.join(sorted(unknown))}")
    max_price = args.get("max_price")
    if max_price is not None and (
        isinstance(max_price, bool) or not isinstance(max_price, int | float) or max_price < 0
    ):
        raise ToolArgumentError("max_price must be a number of EUR, 0 or more")
    return {
        "query": _string(args, "query") or "",
        "category": _string(args, "category", choices=vocabulary["categories"]),
        "exclude_categories": _choices(args, "exclude_categories", vocabulary["categories"]),
        "colour": _string(args, "colour", choices=vocabulary["colours"]),
        "exclude_colours": _choices(args, "exclude_colours", vocabulary["colours"]),
        "size": _string(args, "size", choices=vocabulary["sizes"]),
        "brand": _string(args, "brand", choices=vocabulary["brands"]),
        "max_price": max_price,
        "offset": _integer(args, "offset", default=0, low=0),
        "limit": _integer(args, "limit", default=DEFAULT_LIMIT, low=1, high=MAX_LIMIT),
    }


def search_summary(*, count: int, total: int) -> str:
    """The activity line: "4 of 12 products", or "3 products" when that is all of them."""
    noun = "product" if total == 1 else "products"
    return f"{count} {noun}" if count == total else f"{count} of {total} {noun}"


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


# A bracketed label inside a recalled line ("[fact · stated 2099-01-01]") that is not the
# line's own leading label: a stored note must never pose as another kind of memory. A
# bracketed SKU ("[TS-0001]" in a "Products shown:" line) has no space, dot or date in it.
_LEADING_LABEL = re.compile(r"^\[[^\]]*\]\s*")
_FORGED_LABEL = re.compile(r"\[([^\[\]]*(?:\s|·|\d{4}-\d{2}-\d{2})[^\[\]]*)\]")


def recalled_line_defuse(line: str) -> str:
    """Keep a recalled line's own label; turn any other bracketed label into plain text."""
    lead = _LEADING_LABEL.match(line)
    head, body = (line[: lead.end()], line[lead.end() :]) if lead else ("", line)
    return head + _FORGED_LABEL.sub(r"(\1)", body)


async def tool_run(
    *,
    name: str,
    raw_arguments: str,
    vocabulary: dict[str, list[str]],
    recall: Callable[[str], Awaitable[list[Any]]] | None,
) -> ToolOutcome:
    """Run one tool call; every failure is reported to the model as {"error": ...}."""
    try:
        args = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError:
        return ToolOutcome({"error": "arguments were not valid JSON"}, "invalid arguments")
    if not isinstance(args, dict):
        return ToolOutcome({"error": "arguments must be a JSON object"}, "invalid arguments")
    try:
        if name == "search_products":
            query = search_arguments(args, vocabulary=vocabulary)
            page = await sync_to_async(products_page)(**query)
            products = [hit.as_dict() for hit in page.hits]
            return ToolOutcome(
                {
                    "products": products,
                    "count": len(products),
                    "total": page.total,
                    "offset": page.offset,
                },
                search_summary(count=len(products), total=page.total),
                [_card(p) for p in products],
            )
        if name == "get_product":
            unknown = set(args) - {"sku", "colour"}
            if unknown:
                raise ToolArgumentError(f"unknown arguments: {', '.join(sorted(unknown))}")
            sku = _string(args, "sku")
            if not sku:
                raise ToolArgumentError("sku is required")
            colour = _string(args, "colour", choices=vocabulary["colours"])
            detail = await sync_to_async(product_get)(sku=sku)
            if detail is None:
                return ToolOutcome(
                    {"error": f"no product with SKU {sku} (it may have been withdrawn)"},
                    "not found",
                )
            product = detail.as_dict()
            if colour:
                product = _in_colour(product, colour.lower())
            return ToolOutcome(product, detail.name, [_card(product)])
        if name == "recall_memory" and recall is not None:
            query = _string(args, "query")
            if not query:
                raise ToolArgumentError("query is required")
            found = await recall(query)
            lines = [recalled_line_defuse(item.line) for item in found]
            items = [
                {**item.as_dict(), "line": line} for item, line in zip(found, lines, strict=True)
            ]
            # Fenced and marked untrusted exactly like the notes: a recalled line is data,
            # never an instruction, and never carries a tool result's authority.
            return ToolOutcome(
                {"notes": notes_message(lines) or "", "count": len(lines)},
                f"{len(lines)} note{'s' if len(lines) != 1 else ''}",
                items=items,
            )
    except ToolArgumentError as exc:
        return ToolOutcome({"error": str(exc)}, "invalid arguments")
    return ToolOutcome({"error": f"unknown tool {name}"}, "unknown tool")


async def vocabulary_load() -> dict[str, list[str]]:
    return await database_sync_to_async(catalog_vocabulary)()
