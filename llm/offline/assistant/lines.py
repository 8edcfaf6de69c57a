"""How an answer words products and searches: one line per product, a search described."""

from __future__ import annotations

import re


def product_line(product: dict, *, shared: set[str], priced: bool = False) -> str:
    """One line per product: its name and what sets it apart, and its price where the list
    is ordered by it (`priced`). Its card shows the rest."""
    said = blurb_sentences(product.get("blurb"))
    telling = [s for s in said if s not in shared] or said[:1]
    name = f"**{product.get('name', 'Product')}**"
    price = product.get("price_eur")
    if priced and isinstance(price, int | float) and not isinstance(price, bool):
        name = f"{name}, €{float(price):.2f}"
    return f"- {name} — {lower_first(' '.join(telling))}" if telling else f"- {name}"


def shared_sentences(products: list[dict]) -> set[str]:
    """Blurb sentences every product in the list has: they set none of them apart."""
    if len(products) < 2:
        return set()
    sets = [set(blurb_sentences(product.get("blurb"))) for product in products]
    return set.intersection(*sets)


def blurb_sentences(text: object) -> list[str]:
    if not isinstance(text, str):
        return []
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def describe(arguments: dict) -> str:
    category = arguments.get("category")
    words = [arguments["colour"]] if arguments.get("colour") else []
    if arguments.get("material"):
        words.append(arguments["material"])
    words.append(category if category else "products")
    text = " ".join(words)
    if arguments.get("brand"):
        text += f" from {arguments['brand']}"
    if arguments.get("size"):
        text += f" in size {arguments['size']}"
    if arguments.get("max_price") is not None:
        text += f" under €{arguments['max_price']}"
    if arguments.get("query"):
        text += f" matching “{arguments['query']}”"
    if arguments.get("exclude_colours"):
        text += f" (leaving out {' and '.join(arguments['exclude_colours'])})"
    return text


def first_sentence(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        return ""
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


_FIT = re.compile(r"\b(fit|fits|true to size|runs?|slim|relaxed|loose|cut|through the)\b", re.I)


def fit_sentence(text: object) -> str:
    """The sentence of a product's description that says how it fits ("Cut for a relaxed
    fit."), or "" when none does."""
    if not isinstance(text, str):
        return ""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    return next((s for s in sentences if _FIT.search(s)), "")


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text
