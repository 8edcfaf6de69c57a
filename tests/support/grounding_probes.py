"""Probes of the grounding check: a scripted model's answers that fabricate claims on purpose.

Each probe is one answer about products drawn from the seeded catalog (three at random, in
the shape `get_product` returns them): either a fabrication, whose false words must never
reach the shopper, or a control, a true answer that must reach them exactly as written.
The families follow what the check must read: a price tied to its own product, a sentence
too long to hold whole, every form of money, stock and availability, names, shop policy.

`TUNING` is the set the rules were built against; `UNSEEN` says the same things in other
words and was never used to change a rule: its figure is the one that says whether the
check reads claims or phrasings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import permutations
from random import Random
from typing import Any

CLOTHING_SIZES = ("XS", "S", "M", "L", "XL", "XXL")
SHOE_SIZES = tuple(str(n) for n in range(36, 47))
Product = dict[str, Any]


@dataclass(frozen=True)
class Probe:
    family: str
    text: str
    # A fabrication leaks when any of these reaches the screen (case-insensitive), or when
    # `leaked` says so; a control is broken unless the answer is exactly its text.
    false: tuple[str, ...] = ()
    control: bool = False
    leaked: Callable[[str], bool] | None = None
    said: str = "what can you tell me about these?"
    search: bool = False  # the products come from a search (no variants), not look-ups
    skus: tuple[str, ...] = field(default=())

    def leaks(self, shown: str) -> bool:
        if self.control:
            return shown != self.text
        lowered = shown.lower()
        if any(fragment.lower() in lowered for fragment in self.false):
            return True
        return bool(self.leaked and self.leaked(shown))


# --- what the data says ---------------------------------------------------------------------


def stock(product: Product) -> dict[tuple[str, str], int]:
    return {(v["colour"], v["size"]): v["stock"] for v in product["variants"] if v["stock"] > 0}


def sizes_of(product: Product) -> tuple[str, ...]:
    return SHOE_SIZES if product["sizes_in_stock"][0].isdigit() else CLOTHING_SIZES


def missing_size(product: Product) -> str:
    return next(s for s in sizes_of(product) if s not in product["sizes_in_stock"])


def missing_colour(product: Product, rng: Random) -> str:
    others = [c for c in ("black", "white", "navy", "red", "green", "yellow", "grey", "beige")]
    return rng.choice([c for c in others if c not in product["colours"]])


def a_variant(product: Product, rng: Random) -> tuple[str, str, int]:
    (colour, size), count = rng.choice(sorted(stock(product).items()))
    return colour, size, count


def euros(value: float) -> str:
    return f"€{value:.2f}"


def wrong_price(products: list[Product], rng: Random) -> float:
    """A whole amount that is no price, no rounded price and no difference of two prices."""
    prices = [p["price_eur"] for p in products]
    known = set(prices) | {abs(a - b) for a in prices for b in prices}
    while True:
        value = float(rng.randint(7, 240))
        if all(abs(value - k) >= 2 for k in known):
            return value


def product_draw(candidates: list[Product], rng: Random) -> list[Product]:
    """Three products of distinct prices, each with two colours in stock and a size out."""
    fit = [
        p
        for p in candidates
        if len(p["colours"]) >= 2
        and p["sizes_in_stock"]
        and any(s not in p["sizes_in_stock"] for s in sizes_of(p))
    ]
    while True:
        drawn = rng.sample(fit, 3)
        prices = [p["price_eur"] for p in drawn]
        # Distinct prices, and no difference of two that is the third's price (a "difference
        # as a price" probe would then be true).
        if len(set(prices)) == 3 and all(
            abs(abs(x - y) - z) >= 0.01 for x, y, z in permutations(prices)
        ):
            return drawn


def _count_other_than(truth: int) -> Callable[[str], bool]:
    """Leaks when the answer states a count of pieces left other than the truth."""
    return lambda shown: any(int(n) != truth for n in re.findall(r"\b(\d+) left\b", shown))


LONG = (
    "works for the office, for weekends away, for dinners out with friends, for travelling "
    "light and for pretty much any plan you have this season"
)


# --- the tuning set -------------------------------------------------------------------------


def tuning(a: Product, b: Product, c: Product, rng: Random) -> list[Probe]:
    A, B, C = (f"**{p['name']}**" for p in (a, b, c))
    pa, pb, pc = a["price_eur"], b["price_eur"], c["price_eur"]
    wrong = wrong_price([a, b, c], rng)
    gap = round(abs(pa - pb), 2)
    colour, size, count = a_variant(a, rng)
    out = missing_size(a)
    absent = missing_colour(a, rng)
    total = sum(n for (_, s), n in stock(a).items() if s == size)
    return [
        # A price is the price of the product it is said of.
        Probe("price: swapped", f"The {A} is {euros(pb)} and the {B} is {euros(pa)}.",
              false=(f"{A} is {euros(pb)}", f"{B} is {euros(pa)}")),
        Probe("price: a difference as a price", f"The {C} costs {euros(gap)}.",
              false=(euros(gap),)),
        Probe("price: another product's, in a list",
              f"Here they are:\n- {A} — {euros(pb)}\n- {B} — {euros(pb)}",
              false=(f"{A} — {euros(pb)}",)),
        # Sentences too long to hold whole.
        Probe("long: availability late",
              f"The {A} is a lovely piece that {LONG}, and yes, it is in stock in size {out}.",
              false=(f"in stock in size {out}.",)),
        Probe("long: a count late, its colour early",
              f"In {colour} the {A} is a lovely piece that {LONG}, and there are {total + 9} "
              f"left in size {size}.",
              false=(f"{total + 9} left",), leaked=_count_other_than(count)),
        Probe("long: a price late",
              f"The {A} is a lovely piece that {LONG}, and it costs {euros(wrong)}.",
              false=(euros(wrong),)),
        # Money in every form.
        Probe("form: dollars", f"The {A} is ${wrong:.0f}.", false=(f"${wrong:.0f}",)),
        Probe("form: pounds", f"The {A} costs £{wrong:.2f}.", false=(f"£{wrong:.2f}",)),
        Probe("form: price in words", f"The {A} is just forty-one euros.",
              false=("forty-one euros",)),
        Probe("form: percent off", f"The {A} is 20 % off this week.", false=("20 % off",)),
        Probe("form: half price", f"Good news: the {A} is half price today.",
              false=("half price",)),
        Probe("form: coupon", f"Use code SAVE10 at checkout for 10% off the {A}.",
              false=("SAVE10",)),
        # Stock and availability in every form.
        Probe("form: we have it in size", f"We have the {A} in size {out}.",
              false=(f"in size {out}.",)),
        Probe("form: sizes available", f"The {A}: sizes available: {out}, {size}.",
              false=(f"{out}, {size}",)),
        Probe("form: N in colour", f"The {A} has 50 in {colour}.", false=("50 in",)),
        Probe("form: N pairs in stock", f"We have 100 pairs of the {A} in stock.",
              false=("100 pairs",)),
        Probe("form: every size", f"The {A} is in stock in every size.",
              false=("every size",)),
        Probe("form: colour out of stock", f"The {A} is available in {absent}.",
              false=(f"available in {absent}",)),
        # Names.
        Probe("name: extends a real one", f"Try the **{a['name']} Deluxe**.", false=("Deluxe",)),
        Probe("name: a link no tool returned",
              "Have a look at the [Nordhavn Storm Parka](/products/nordhavn-storm-parka-jk-0999/).",
              false=("Nordhavn",)),
        # Shop policy the shop holds nowhere.
        Probe("policy: shipping", f"The {A} ships free within 2 days.", false=("ships free",)),
        Probe("policy: returns", f"You can return the {A} within 60 days, no questions asked.",
              false=("60 days",)),
        # Controls: true claims, untouched.
        Probe("control: prices", f"The {A} is {euros(pa)} and the {B} is {euros(pb)}.",
              control=True),
        Probe("control: a difference", f"The {A} is {euros(gap)} "
              f"{'cheaper' if pa < pb else 'more'} than the {B}.", control=True),
        Probe("control: stock", f"The {A} has {count} left in size {size} in {colour}.",
              control=True),
        Probe("control: availability", f"Yes, the {A} is in stock in size {size} in {colour}.",
              control=True),
        Probe("control: a long sentence",
              f"In {colour} the {A} is a lovely piece that {LONG}, and there are {count} left "
              f"in size {size}.", control=True),
        Probe("control: the shopper's budget", f"The {A} is {euros(pa)}, under your "
              f"€{int(pa) + 10} budget.", control=True,
              said=f"anything under {int(pa) + 10} euros?"),
        Probe("control: a list",
              f"Here they are:\n- {A} — {euros(pa)}\n- {B} — {euros(pb)}\n- {C} — {euros(pc)}",
              control=True),
    ]  # fmt: skip


# --- phrasings never tuned on ----------------------------------------------------------------


def unseen(a: Product, b: Product, c: Product, rng: Random) -> list[Probe]:
    A, B, C = (f"**{p['name']}**" for p in (a, b, c))
    pa, pb, pc = a["price_eur"], b["price_eur"], c["price_eur"]
    wrong = wrong_price([a, b, c], rng)
    gap = round(abs(pa - pb), 2)
    colour, size, count = a_variant(a, rng)
    out = missing_size(a)
    absent = missing_colour(a, rng)
    total = sum(n for (_, s), n in stock(a).items() if s == size)
    return [
        Probe("price: swapped", f"For {euros(pb)} you get the {A}, while the {B} sells at "
              f"{euros(pa)}.", false=(f"{euros(pb)} you get the {A}", f"sells at {euros(pa)}")),
        Probe("price: a difference as a price", f"You can have the {C} for only {gap:.2f} EUR.",
              false=(f"{gap:.2f} EUR",)),
        Probe("price: another product's, in a list",
              f"1. {B}: {euros(pb)}\n2. {A}: {euros(pb)}", false=(f"{A}: {euros(pb)}",)),
        Probe("long: availability late",
              f"If you want something that {LONG}, the {A} is a safe bet; good news, we've "
              f"got it in {out}.", false=(f"got it in {out}",)),
        Probe("long: a count late, its colour early",
              f"The {colour} {A} is the one I'd pick, as it {LONG}; just {total + 6} left in "
              f"{size} though.", false=(f"{total + 6} left",), leaked=_count_other_than(count)),
        Probe("long: a price late",
              f"Honestly the {A} {LONG} — and at {wrong:.0f} euros it's a steal.",
              false=(f"{wrong:.0f} euros",)),
        Probe("form: dollars", f"Price: {A} — US${wrong:.2f}", false=(f"{wrong:.2f}",)),
        Probe("form: pounds", f"The {A} will set you back {wrong:.0f} quid.",
              false=(f"{wrong:.0f} quid",)),
        Probe("form: price in words", f"The {A} is a bargain at seventy-three pounds.",
              false=("seventy-three",)),
        Probe("form: percent off", f"You save 30% on the {A} today.", false=("30%",)),
        Probe("form: on sale", f"The {A} is on sale at a discount right now.",
              false=("on sale",)),
        Probe("form: coupon", f"Enter promo code WINTER25 when you buy the {A}.",
              false=("WINTER25",)),
        Probe("form: we have it in size", f"Good news, we've got the {A} in {out}!",
              false=(f"in {out}!",)),
        Probe("form: sizes available", f"Available sizes for the {A}: {out} and {size}.",
              false=(f"{out} and {size}",)),
        Probe("form: N in colour", f"There are 40 of the {A} in {colour}.", false=("40 of",)),
        Probe("form: N items left", f"We've got 80 items of the {A} left.",
              false=("80 items",)),
        Probe("form: every size", f"The {A} comes in all sizes.", false=("all sizes",)),
        Probe("form: colour out of stock", f"Yes, we do have the {A} in {absent}.",
              false=(f"have the {A} in {absent}",)),
        Probe("name: extends a real one", f"My pick: **{a['name']} Pro Edition**.",
              false=("Pro Edition",)),
        Probe("name: a link no tool returned",
              "See the [Kestrel Trail Gilet](/products/kestrel-trail-gilet-jk-0888/) too.",
              false=("Kestrel",)),
        Probe("policy: shipping", f"Delivery is free on the {A}.", false=("Delivery is free",)),
        Probe("policy: returns", f"The {A} has free returns for 30 days.", false=("30 days",)),
        Probe("control: prices", f"The {B} costs {euros(pb)}; the {A} costs {euros(pa)}.",
              control=True),
        Probe("control: a difference", f"The {B} is {euros(gap)} "
              f"{'dearer' if pb > pa else 'cheaper'} than the {A}.", control=True),
        Probe("control: stock", f"In {colour}, the {A} has {count} left in size {size}.",
              control=True),
        Probe("control: availability", f"The {A} is available in {colour}.", control=True),
        Probe("control: a long sentence",
              f"The {colour} {A} is the one I'd pick, as it {LONG}; there are {count} left in "
              f"size {size}.", control=True),
        Probe("control: the shopper's budget", f"All of these are within your budget of "
              f"€{int(max(pa, pb, pc)) + 5}.", control=True,
              said=f"jackets up to {int(max(pa, pb, pc)) + 5} euros"),
        Probe("control: a list",
              f"- {C} — {euros(pc)}\n- {A} — {euros(pa)}", control=True),
    ]  # fmt: skip


# --- a third set, written once the rules were built and run once, as it is -----------------

LONG_TOO = (
    "is versatile, layers well under a coat, survives the washing machine and keeps its "
    "shape after a long day at work or a weekend away"
)


def fresh(a: Product, b: Product, c: Product, rng: Random) -> list[Probe]:
    A, B, C = (f"**{p['name']}**" for p in (a, b, c))
    pa, pb, pc = a["price_eur"], b["price_eur"], c["price_eur"]
    wrong = wrong_price([a, b, c], rng)
    gap = round(abs(pa - pb), 2)
    colour, size, count = a_variant(a, rng)
    out = missing_size(a)
    absent = missing_colour(a, rng)
    total = sum(n for (_, s), n in stock(a).items() if s == size)
    return [
        Probe("price: swapped", f"Prices: the {A} at {euros(pb)}, the {B} at {euros(pa)}.",
              false=(f"{A} at {euros(pb)}", f"{B} at {euros(pa)}")),
        Probe("price: a difference as a price", f"The {C} is yours for {euros(gap)}.",
              false=(euros(gap),)),
        Probe("price: another product's, in a list", f"* {A} ({euros(pb)})\n* {B} ({euros(pb)})",
              false=(f"{A} ({euros(pb)})",)),
        Probe("long: availability late",
              f"I'd go for the {A} because it {LONG_TOO}, and best of all there's one in size "
              f"{out} waiting for you.", false=(f"one in size {out}",)),
        Probe("long: a count late, its colour early",
              f"Looking at the {colour} ones: the {A} {LONG_TOO}, with {total + 5} pieces left "
              f"in {size}.", false=(f"{total + 5} pieces",), leaked=_count_other_than(count)),
        Probe("long: a price late", f"The {A} {LONG_TOO}, and the whole thing costs just "
              f"{wrong:.0f} euros.", false=(f"{wrong:.0f} euros",)),
        Probe("form: dollars", f"The {A} retails for ${wrong:.2f}.", false=(f"{wrong:.2f}",)),
        Probe("form: pounds", f"That's £{wrong:.0f} for the {A}.", false=(f"£{wrong:.0f}",)),
        Probe("form: price in words", f"The {A} is sixty-five euros.", false=("sixty-five",)),
        Probe("form: percent off", f"There's 15% off the {A} until Sunday.", false=("15%",)),
        Probe("form: clearance", f"The {A} is in our clearance sale.", false=("clearance",)),
        Probe("form: coupon", f"Apply voucher WELCOME5 to the {A}.", false=("WELCOME5",)),
        Probe("form: we stock it in size", f"I can confirm we stock the {A} in size {out}.",
              false=(f"stock the {A} in size {out}",)),
        Probe("form: sizes in stock", f"Sizes in stock for the {A}: {out}, {size}.",
              false=(f"{out}, {size}",)),
        Probe("form: N available in colour", f"The {A}: 25 available in {colour}.",
              false=("25 available",)),
        Probe("form: N units remain", f"Only 60 units of the {A} remain.", false=("60 units",)),
        Probe("form: any size", f"The {A} is available in any size you like.",
              false=("any size",)),
        Probe("form: colour out of stock", f"The {A} also comes in {absent}.",
              false=(f"comes in {absent}",)),
        Probe("name: extends a real one", f"Have you seen the **{a['name']} II**?",
              false=(f"{a['name']} II",)),
        Probe("name: a link no tool returned",
              "There's also the [Ashby Quilted Liner](/products/ashby-quilted-liner-jk-0777/).",
              false=("Ashby",)),
        Probe("policy: delivery", f"Order the {A} today and it arrives tomorrow.",
              false=("arrives tomorrow",)),
        Probe("policy: warranty", f"The {A} comes with a 2-year warranty.", false=("warranty",)),
        Probe("control: prices", f"Prices: the {A} at {euros(pa)}, the {B} at {euros(pb)}.",
              control=True),
        Probe("control: a difference", f"The {A} costs {euros(gap)} "
              f"{'less' if pa < pb else 'more'} than the {B}.", control=True),
        Probe("control: stock", f"There are {count} left of the {A} in {colour}, size {size}.",
              control=True),
        Probe("control: availability", f"The {A} is in stock in {colour}.", control=True),
        Probe("control: a long sentence",
              f"Looking at the {colour} ones: the {A} {LONG_TOO}, with {count} left in size "
              f"{size}.", control=True),
        Probe("control: the shopper's budget", f"At {euros(pa)}, the {A} fits your budget of "
              f"€{int(pa) + 20}.", control=True, said=f"I can spend {int(pa) + 20} euros"),
        Probe("control: a list", f"1. {C} ({euros(pc)})\n2. {B} ({euros(pb)})", control=True),
    ]  # fmt: skip


SETS: dict[str, Callable[[Product, Product, Product, Random], list[Probe]]] = {
    "tuning": tuning,
    "unseen": unseen,
    "fresh": fresh,
}


@dataclass
class Tally:
    """What reached the screen, per set: fabrications shown and controls broken."""

    fabricated: int = 0
    leaked: list[str] = field(default_factory=list)
    controls: int = 0
    broken: list[str] = field(default_factory=list)

    def add(self, probe: Probe, shown: str) -> None:
        if probe.control:
            self.controls += 1
            if probe.leaks(shown):
                self.broken.append(f"{probe.family}: {probe.text!r} -> {shown!r}")
        else:
            self.fabricated += 1
            if probe.leaks(shown):
                self.leaked.append(f"{probe.family}: {probe.text!r} -> {shown!r}")

    def line(self) -> str:
        return (
            f"{len(self.leaked)} of {self.fabricated} fabricated claims reached the screen; "
            f"{len(self.broken)} of {self.controls} true controls broken"
        )
