"""The assistant's tools: the catalog (the only source of prices, SKUs and sizes) and memory.

Arguments come from a model and are untrusted: each is checked against the schema the
model was given, and any problem becomes a tool result the model can read, never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async

from shop.selectors import catalog_vocabulary, product_get, products_search

MAX_LIMIT = 10


class ToolArgumentError(ValueError):
    pass


@dataclass
class ToolOutcome:
    content: dict[str, Any]
    summary: str
    products: list[dict[str, Any]] = field(default_factory=list)


def tool_schemas(*, vocabulary: dict[str, list[str]], with_memory: bool) -> list[dict]:
    """OpenAI tool definitions; enums teach the model the catalog's vocabulary."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search_products",
                "description": (
                    "Search the shop's catalog. Returns in-stock, active products with price "
                    "in EUR, colours and sizes in stock. Use it before naming any product."
                ),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {
                            "type": "string",
                            "description": "Free words: style, material, occasion.",
                        },
                        "category": {"type": "string", "enum": vocabulary["categories"]},
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
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                    },
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "get_product",
                "description": "Look up one product by SKU: price, description, in-stock variants.",
                "parameters": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}},
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


def search_arguments(args: dict, *, vocabulary: dict[str, list[str]]) -> dict[str, Any]:
    unknown = set(args) - {
        "query",
        "category",
        "colour",
        "exclude_colours",
        "size",
        "brand",
        "max_price",
        "limit",
    }
    if unknown:
        raise ToolArgumentError(f"unknown arguments: {', '.join(sorted(unknown))}")
    excluded = args.get("exclude_colours") or []
    if not isinstance(excluded, list) or not all(isinstance(c, str) for c in excluded):
        raise ToolArgumentError("exclude_colours must be a list of colours")
    colours = {c.lower() for c in vocabulary["colours"]}
    bad = [c for c in excluded if c.lower() not in colours]
    if bad:
        raise ToolArgumentError(f"unknown colours: {', '.join(bad)}")
    max_price = args.get("max_price")
    if max_price is not None and (
        isinstance(max_price, bool) or not isinstance(max_price, int | float) or max_price < 0
    ):
        raise ToolArgumentError("max_price must be a number of EUR, 0 or more")
    limit = args.get("limit", 6)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ToolArgumentError(f"limit must be an integer from 1 to {MAX_LIMIT}")
    return {
        "query": _string(args, "query") or "",
        "category": _string(args, "category", choices=vocabulary["categories"]),
        "colour": _string(args, "colour", choices=vocabulary["colours"]),
        "exclude_colours": [c.lower() for c in excluded],
        "size": _string(args, "size", choices=vocabulary["sizes"]),
        "brand": _string(args, "brand", choices=vocabulary["brands"]),
        "max_price": max_price,
        "limit": limit,
    }


def _card(product: dict[str, Any]) -> dict[str, Any]:
    keys = ("sku", "name", "brand", "price_eur", "colours", "sizes_in_stock", "url")
    return {k: product[k] for k in keys}


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
            hits = await sync_to_async(products_search)(**query)
            products = [hit.as_dict() for hit in hits]
            summary = f"{len(products)} product{'s' if len(products) != 1 else ''}"
            return ToolOutcome(
                {"products": products, "count": len(products)},
                summary,
                [_card(p) for p in products],
            )
        if name == "get_product":
            sku = _string(args, "sku")
            if not sku:
                raise ToolArgumentError("sku is required")
            detail = await sync_to_async(product_get)(sku=sku)
            if detail is None:
                return ToolOutcome(
                    {"error": f"no product with SKU {sku} (it may have been withdrawn)"},
                    "not found",
                )
            product = detail.as_dict()
            return ToolOutcome(product, detail.name, [_card(product)])
        if name == "recall_memory" and recall is not None:
            query = _string(args, "query")
            if not query:
                raise ToolArgumentError("query is required")
            items = await recall(query)
            return ToolOutcome({"notes": [item.line for item in items]}, f"{len(items)} notes")
    except ToolArgumentError as exc:
        return ToolOutcome({"error": str(exc)}, "invalid arguments")
    return ToolOutcome({"error": f"unknown tool {name}"}, "unknown tool")


async def vocabulary_load() -> dict[str, list[str]]:
    return await sync_to_async(catalog_vocabulary)()
