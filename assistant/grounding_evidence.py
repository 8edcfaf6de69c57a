"""The grounding check's evidence: what this turn's catalog data says about each product.

Every product a tool returned this turn (search hits, product look-ups with their variants)
and the page's product, all views of one product merged, with the figures the shopper gave
and the catalog's colours and sizes (to read them in text). Memory is no evidence.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from shop.numbers import MAX_PRICE_EUR, NumberRefused, number_checked


def name_plain(name: str) -> str:
    return re.sub(r"^the\s+", "", re.sub(r"\s+", " ", name.strip().lower()))


@dataclass
class Product:
    """Everything this turn's catalog data says about one product (all views merged)."""

    sku: str
    name: str
    price: float | None = None
    colours: set[str] = field(default_factory=set)
    sizes: set[str] = field(default_factory=set)
    # variant sku -> (colour, size, stock); known only from a product look-up.
    variants: dict[str, tuple[str, str, int]] = field(default_factory=dict)

    def sizes_in(self, colour: str | None) -> list[str] | None:
        """Sizes in stock (in one colour when given); None when the data cannot tell."""
        if colour is None:
            return list(self.sizes)
        if self.variants:
            return [size for c, size, stock in self.variants.values() if c == colour and stock > 0]
        # A search hit gives sizes over all its colours: they are that colour's when it is
        # the only colour in stock.
        if self.colours == {colour}:
            return list(self.sizes)
        return None

    def stock_of(self, *, size: str | None, colour: str | None) -> int | None:
        if not self.variants:
            return None
        return sum(
            stock
            for c, s, stock in self.variants.values()
            if (size is None or s == size) and (colour is None or c == colour)
        )


@dataclass
class Evidence:
    """This turn's catalog data and the shopper's own figures; grows as tools return."""

    colours: list[str]
    sizes: list[str]
    products: dict[str, Product] = field(default_factory=dict)
    figures: set[float] = field(default_factory=set)

    def add_product(self, data: dict[str, Any]) -> None:
        sku = str(data.get("sku") or "").upper()
        name = str(data.get("name") or "").strip()
        if not sku or not name:
            return
        product = self.products.setdefault(sku, Product(sku=sku, name=name))
        price = data.get("price_eur")
        if isinstance(price, int | float) and not isinstance(price, bool):
            product.price = float(price)
        product.colours.update(str(c).lower() for c in data.get("colours") or [])
        product.sizes.update(str(s) for s in data.get("sizes_in_stock") or [])
        for variant in data.get("variants") or []:
            if isinstance(variant, dict) and variant.get("sku"):
                product.variants[str(variant["sku"])] = (
                    str(variant.get("colour") or "").lower(),
                    str(variant.get("size") or ""),
                    int(variant.get("stock") or 0),
                )
                product.colours.add(str(variant.get("colour") or "").lower())
                product.sizes.add(str(variant.get("size") or ""))

    def add_result(self, content: dict[str, Any], arguments: dict[str, Any] | None = None) -> None:
        """A tool's result (a search page or a product look-up) and the arguments it got."""
        if isinstance(content.get("products"), list):
            for product in content["products"]:
                if isinstance(product, dict):
                    self.add_product(product)
        elif content.get("sku"):
            self.add_product(content)
        if "error" in content:
            return  # refused arguments back nothing the answer may say
        for value in (arguments or {}).values():
            # Held to the rule the tools hold them to: never NaN, never a 400-digit float().
            with contextlib.suppress(NumberRefused):
                self.figures.add(float(number_checked(value, name="", low=0, high=MAX_PRICE_EUR)))

    def add_shopper_text(self, text: str) -> None:
        """Figures the shopper wrote ("under 60", "€45.50") may be said back to them."""
        for number in re.findall(r"\d+(?:[.,]\d{1,2})?", text or ""):
            self.figures.add(float(number.replace(",", ".")))

    def named(self, text: str) -> list[tuple[int, Product]]:
        """(position, product) for each product whose name the text carries, in order."""
        lowered = text.lower()
        found = []
        for product in self.products.values():
            at = lowered.find(product.name.lower())
            if at >= 0:
                found.append((at, product))
        return sorted(found, key=lambda pair: pair[0])

    def by_name(self, name: str) -> Product | None:
        wanted = name_plain(name)
        for product in self.products.values():
            if name_plain(product.name) == wanted:
                return product
        return None

    def amount_backed(self, amount: float) -> bool:
        prices = [p.price for p in self.products.values() if p.price is not None]
        known = list(self.figures) + prices
        known += [abs(a - b) for i, a in enumerate(prices) for b in prices[i + 1 :]]
        if any(abs(amount - value) < 0.005 for value in known):
            return True
        # A whole-euro amount may round a price ("about €53" of €52.99).
        return amount == int(amount) and any(
            int(amount) in (math.floor(value), math.ceil(value)) for value in known
        )


def evidence_start(
    *,
    vocabulary: dict[str, list[str]],
    page_product: dict[str, Any] | None = None,
    shopper_texts: Iterable[str] = (),
) -> Evidence:
    evidence = Evidence(
        colours=[c.lower() for c in vocabulary.get("colours", [])],
        sizes=list(vocabulary.get("sizes", [])),
    )
    if page_product:
        evidence.add_product(page_product)
    for text in shopper_texts:
        evidence.add_shopper_text(text)
    return evidence
