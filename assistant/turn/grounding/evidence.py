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

from django.conf import settings

from llm.note_lines import FACT, note_line_read
from llm.shopper_words import amounts_of_money, numbers_in_digits
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
    # The figures its own description and blurb state ("100% cotton", "washes at 30").
    described: set[str] = field(default_factory=set)

    def price_backs(self, amount: float, *, rounded: bool) -> bool:
        """The amount is this product's price or, written without cents (`rounded`), the
        price rounded to whole euros ("about €35" of €34.50; never €23 of €23.95)."""
        if self.price is None:
            return False
        if abs(amount - self.price) < 0.005:
            return True
        return rounded and amount == math.floor(self.price + 0.5)

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
        for key in ("description", "blurb"):
            product.described.update(re.findall(r"\d+", str(data.get(key) or "")))
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
        # A search's alternatives (what the other filters found when its words found
        # nothing) are products the tool returned too: an answer offering them may name them.
        listed = [*(content.get("products") or []), *(content.get("alternatives") or [])]
        if isinstance(content.get("products"), list):
            for product in listed:
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
        """Figures the shopper wrote ("under 60", "€45.50", "sixty quid") may be said back to
        them, as their own figures (never as a product's price)."""
        for number in re.findall(r"\d+(?:[.,]\d{1,2})?", numbers_in_digits(text or "")):
            self.figures.add(float(number.replace(",", ".")))
        for money in amounts_of_money(text or ""):
            self._add_converted(money.amount, money.currency)

    def _add_converted(self, amount: float, currency: str) -> None:
        """A figure in pounds is the shopper's in euros too, at the rate the shop states
        (whole euros, as the answers say it)."""
        rate = (getattr(settings, "SHOP_EXCHANGE_RATES", {}) or {}).get(currency)
        if rate:
            self.figures.add(float(round(amount * rate)))

    def add_notes(self, text: str) -> None:
        """The shopper's own facts in the notes (a remembered budget, or one stated earlier in
        this chat) are their figures too. Nothing else recalled is: a remembered price or
        product is a lead, never evidence."""
        for line in (text or "").splitlines():
            read = note_line_read(line.strip())
            if read is not None and read[0] and read[0][0] == FACT:
                for money in amounts_of_money(read[1]):
                    self.figures.add(money.amount)
                    self._add_converted(money.amount, money.currency)

    def named(self, text: str) -> list[tuple[int, Product]]:
        """(position, product) for each place the text names a product, in order; of two
        names starting at one place ("Crew Tee", "Crew Tee Long") the longer."""
        lowered = text.lower()
        found: dict[int, Product] = {}
        for product in self.products.values():
            name = product.name.lower()
            at = lowered.find(name)
            while at >= 0:
                if at not in found or len(found[at].name) < len(product.name):
                    found[at] = product
                at = lowered.find(name, at + 1)
        return sorted(found.items(), key=lambda pair: pair[0])

    def by_name(self, name: str) -> Product | None:
        wanted = name_plain(name)
        for product in self.products.values():
            if name_plain(product.name) == wanted:
                return product
        return None

    def figure_backs(self, amount: float) -> bool:
        """The amount is one the shopper gave (or a tool was passed on their behalf)."""
        return any(abs(amount - value) < 0.005 for value in self.figures)


def evidence_start(
    *,
    vocabulary: dict[str, list[str]],
    page_product: dict[str, Any] | None = None,
    shopper_texts: Iterable[str] = (),
    notes: str | None = None,
) -> Evidence:
    evidence = Evidence(
        colours=[c.lower() for c in vocabulary.get("colours", [])],
        sizes=list(vocabulary.get("sizes", [])),
    )
    # The shop's own exchange rates ("1 GBP = 1.17 EUR") may be said with a conversion.
    for rate in (getattr(settings, "SHOP_EXCHANGE_RATES", {}) or {}).values():
        evidence.figures.update((1.0, float(rate)))
    if page_product:
        evidence.add_product(page_product)
    for text in shopper_texts:
        evidence.add_shopper_text(text)
    evidence.add_notes(notes or "")
    return evidence
