"""What a shopper of the shoppers' set says: each fact a unit, with the exchanges that say it,
the word an exact question shares with it, and its questions of each kind."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from benchmarks.recall.shopper_tables import (
    BUDGETS,
    CATEGORY_WORDS,
    LEGS,
    REQUESTS,
    SHOE_SIZES,
    TOP_SIZES,
    WAISTS,
    say_date,
)


def product_price(product: dict) -> str:
    return f"€{float(product['price']):.2f}"


def product_sizes(product: dict) -> list[str]:
    return list(dict.fromkeys(v["size"] for v in product["variants"] if v["stock"] > 0))


def product_colours(product: dict) -> list[str]:
    return list(dict.fromkeys(v["colour"] for v in product["variants"]))


def product_line(product: dict) -> str:
    """One product as the assistant lists it (name, price, brand, colours, sizes, SKU)."""
    sizes = ", ".join(product_sizes(product)) or "none right now"
    return (
        f"- **{product['name']}** — {product_price(product)} · by {product['brand']} · "
        f"colours: {', '.join(product_colours(product))} · sizes in stock: {sizes} · SKU {product['sku']}"
    )


@dataclass
class Unit:
    """One thing a shopper tells the assistant, the exchanges that say it and its questions."""

    topic: str
    statements: list[tuple[str, str]]  # (shopper, assistant) for the first and any restatement
    fact: str | None
    needle: str  # the rare word an exact question shares with the answer
    questions: dict[str, list[str]]
    visit: int = -1
    keys: list[str] = field(default_factory=list)


class Statements:
    """What one shopper tells the assistant, a unit at a time, and the products it shows.

    `shoppers._Builder` places the units on visits among small talk and asks about them.
    """

    def __init__(
        self,
        *,
        rng: random.Random,
        catalog: list[dict],
        number: int,
        seed: int,
        recipients: list[str],
        asked: set[str],
    ):
        self.rng = rng
        self.catalog = catalog
        self.number = number
        self.seed = seed
        self.recipients = recipients
        self.names_used = set(recipients)
        self.asked = asked  # every question text so far, across shoppers: all stay distinct
        self.featured_skus: set[str] = set()
        self.other_categories: list[str] = []

    # -- products --

    def _pick(
        self,
        categories: Iterable[str],
        *,
        brand: str | None = None,
        colour: str | None = None,
        max_price: float = math.inf,
    ) -> dict:
        """A product of these categories, never one the shopper looks at on purpose."""
        allowed = set(categories)
        pool = [
            p
            for p in self.catalog
            if p["category"] in allowed and p["sku"] not in self.featured_skus
        ]
        matching = [
            p
            for p in pool
            if (brand is None or p["brand"] == brand)
            and (colour is None or colour in product_colours(p))
            and float(p["price"]) <= max_price
        ]
        return self.rng.choice(matching or pool)

    def _other(self, **where: Any) -> dict:
        """A product from a category this shopper never looks at on purpose."""
        return self._pick(self.other_categories, **where)

    # -- how things get said --

    def _said(self, statement: str, ack: str, **where: Any) -> tuple[str, str]:
        """A statement as shoppers make it: half the time inside a request for something else.

        `where` narrows the products the answer lists (brand, colour, max_price).
        """
        rng = self.rng
        if rng.random() < 0.5:
            category = rng.choice(self.other_categories)
            ask = rng.choice(REQUESTS).format(word=CATEGORY_WORDS[category][0])
            user = f"{ask} {statement}" if rng.random() < 0.5 else f"{statement} {ask}"
            return user, f"{ack} {self._listing(category, rng.randint(1, 3), **where)}"
        if where and rng.random() < 0.6:
            return statement, f"{ack}\n\n{product_line(self._other(**where))}"
        return statement, ack

    def _listing(self, category: str, count: int, **where: Any) -> str:
        shown = list({p["sku"]: p for p in (self._pick([category], **where) for _ in range(count))})
        products = [p for p in self.catalog if p["sku"] in shown]
        head = "Here is one option" if len(products) == 1 else f"Here are {len(products)} options"
        lines = "\n".join(product_line(p) for p in products)
        return f"{head} for {category}:\n\n{lines}"

    def _statements(
        self, statements: list[str], acks: list[str], **where: Any
    ) -> list[tuple[str, str]]:
        """The first statement, and a third of the time a restatement in other words."""
        first, second = self.rng.sample(statements, 2)
        said = [self._said(first, acks[0], **where)]
        if self.rng.random() < 0.34:
            said.append(self._said(second, acks[1], **where))
        return said

    # -- what the shopper tells the assistant --

    def _top_size(self) -> Unit:
        s = self.rng.choice(TOP_SIZES)
        return Unit(
            "size/tops",
            self._statements(
                [
                    f"I'm usually a {s} in tops.",
                    f"Size {s} for anything on top, please.",
                    f"I take a {s} in shirts and tees.",
                ],
                [f"Noted, {s} it is.", f"Got it, I'll look for {s}."],
            ),
            f"The shopper wears size {s}.",
            s,
            {
                "exact": [f"Do you have this one in {s}?", f"Is the new tee available in {s}?"],
                "topic": ["What size do I take in tops?", "Which size should my shirts be?"],
                "paraphrase": [
                    "How big should a sweater be for me?",
                    "What fits me for a blouse?",
                    "Remind me how large my upper-body garments should be.",
                ],
            },
        )

    def _waist(self) -> Unit:
        w, leg = self.rng.choice(WAISTS), self.rng.choice(LEGS)
        return Unit(
            "size/waist",
            self._statements(
                [
                    f"For jeans I take a {w} waist, {leg} leg.",
                    f"My waist is {w}.",
                    f"I'm a {w} waist in trousers.",
                ],
                [f"Thanks — {w} waist, noted.", f"Perfect, I'll stick to a {w} waist."],
            ),
            f"The shopper wears waist size {w}.",
            w,
            {
                "exact": [f"Do those come in a {w}?", f"Would a {w} fit me in chinos?"],
                "topic": ["What's my waist size?", "Which waist measurement did I give you?"],
                "paraphrase": [
                    "How wide around the middle should my pants be?",
                    "What's the right fit for me around the belly?",
                ],
            },
        )

    def _shoe_size(self) -> Unit:
        n = self.rng.choice(SHOE_SIZES)
        return Unit(
            "size/shoes",
            self._statements(
                [f"I'm a {n} in shoes.", f"My shoe size is {n}.", f"I take a {n} in trainers."],
                [f"Good to know — I'll only show you {n}.", f"Size {n}, noted."],
            ),
            f"The shopper wears shoe size {n}.",
            n,
            {
                "exact": [f"Have you got these in {n}?", f"Show me loafers in {n}."],
                "topic": ["What's my shoe size again?", "Which size shoes do I wear?"],
                "paraphrase": ["How large are my feet?", "What footwear fits me, length-wise?"],
            },
        )

    def _budget(self) -> Unit:
        b = self.rng.choice(BUDGETS)
        return Unit(
            "budget",
            self._statements(
                [
                    f"I don't want to spend more than {b} euros.",
                    f"My budget is about {b} EUR.",
                    f"Keep it under €{b}, please.",
                ],
                [f"Understood — I'll stick to pieces under €{b}.", f"Got it, up to {b} EUR."],
                max_price=b,
            ),
            f"The shopper's budget is up to {b} EUR.",
            str(b),
            {
                "exact": [f"Can I get a coat for {b}?", f"Is {b} enough for a good pair?"],
                "topic": ["What budget did I give you?", "How much did I want to spend?"],
                "paraphrase": ["What's the most I'm happy to pay?", "How pricey can it get?"],
            },
        )

    def _brand(self, brand: str) -> Unit:
        return Unit(
            "brand",
            self._statements(
                [
                    f"{brand} is my go-to brand.",
                    f"I always end up buying {brand}.",
                    f"I really like what {brand} makes.",
                ],
                [f"{brand} is lovely — here's one of theirs.", f"Noted, {brand} first."],
                brand=brand,
            ),
            f"The shopper prefers the brand {brand}.",
            brand.split()[0],
            {
                "exact": [f"Anything new from {brand}?", f"What does {brand} have this season?"],
                "topic": ["Which brand do I like?", "What brands do I usually buy?"],
                "paraphrase": ["Which label am I loyal to?", "Whose clothing do I keep choosing?"],
            },
        )

    def _colour(self, colour: str, *, liked: bool) -> Unit:
        if liked:
            statement = self.rng.choice(
                [
                    f"I'm really into {colour} at the moment.",
                    f"{colour.capitalize()} is my favourite colour.",
                    f"I love wearing {colour}.",
                ]
            )
            return Unit(
                "colour/liked",
                [self._said(statement, f"Then you might like this in {colour}.", colour=colour)],
                f"The shopper likes {colour}.",
                colour,
                {
                    "exact": [f"Should I go for the {colour} one?", f"Is {colour} a good idea?"],
                    "topic": ["Which colours do I like?", "What's my favourite colour?"],
                    "paraphrase": ["Which shades am I drawn to?", "What hue suits my taste?"],
                },
            )
        statement = self.rng.choice(
            [
                f"Please, nothing in {colour} — it doesn't suit me.",
                f"I can't stand {colour}.",
                f"Not a fan of {colour} at all.",
            ]
        )
        return Unit(
            "colour/disliked",
            [self._said(statement, f"Understood, I'll leave out anything {colour}.")],
            f"The shopper dislikes {colour}.",
            colour,
            {
                "exact": [f"Would the {colour} version work for me?", f"How about it in {colour}?"],
                "topic": ["Which colour do I dislike?", "What colour should you never show me?"],
                "paraphrase": ["Are there hues I steer clear of?", "Which shade do I hate?"],
            },
        )

    def _occasion(
        self, occasion: tuple[str, str, str, str], day: date, relation: tuple[str, str, str]
    ) -> Unit:
        rel, para, _ = relation
        said, event, paraphrase, as_fact = occasion
        said, as_fact = said.format(rel=rel), as_fact.format(rel=rel)
        when = say_date(day, self.rng.choice((0, 0, 1, 2)))
        statement = self.rng.choice(
            [
                f"I need something to wear to {said} on {when}.",
                f"I'm shopping for {said} — it's on {when}.",
            ]
        )
        return Unit(
            "occasion",
            [self._said(statement, "How exciting! This could work for it.", max_price=10_000)],
            f"The shopper is shopping for {as_fact} on {say_date(day, 0)}.",
            str(day.day),
            {
                "exact": [
                    f"What have I got coming up on {say_date(day, self.rng.choice((0, 1)))}?",
                    f"Is anything happening on {say_date(day, 0)}?",
                ],
                "topic": [f"When is the {event}?", f"What date was the {event} again?"],
                "paraphrase": [paraphrase.format(para=para)],
            },
        )

    def _person(self, relation: tuple[str, str, str], name: str) -> Unit:
        rel, para, pronoun = relation
        size = self.rng.choice(TOP_SIZES)
        colour = self.rng.choice(["green", "navy", "red", "beige", "pink", "olive", "grey"])
        statement = self.rng.choice(
            [
                f"I'm shopping for my {rel} {name} today — {pronoun} takes a {size} and loves {colour}.",
                f"It's a present for my {rel} {name}; {pronoun}'s a {size}, mad about {colour}.",
            ]
        )
        return Unit(
            "person",
            [self._said(statement, f"Lovely! For {name} in {size}, in {colour}:", colour=colour)],
            None,
            name,
            {
                "exact": [f"What size does {name} take?", f"What was I getting {name}?"],
                "topic": [f"What does my {rel} like?", f"What size is my {rel}?"],
                "paraphrase": [
                    f"Which hue would my {para} enjoy?",
                    f"How big are my {para}'s clothes?",
                ],
            },
        )

    def _product(self, product: dict, *, jacket: bool = False) -> Unit:
        word, synonyms = CATEGORY_WORDS[product["category"]]
        name, sku = product["name"], product["sku"]
        described = product["description"].split(". ")[0]
        user = self.rng.choice(
            [
                f"Can you tell me more about the {name}?",
                f"I saw the {name} online — what colours does it come in?",
                f"Show me {word}, something from {product['brand']}.",
            ]
        )
        assistant = f"Here's the **{name}**. {described}.\n\n{product_line(product)}"
        short = " ".join(name.split()[len(product["brand"].split()) :])
        synonym = self.rng.choice(synonyms)
        if jacket:
            questions = {
                "exact": [f"Is the {short} still available?", f"Do you still have {sku}?"],
                "topic": [
                    "The jacket from last time — do you still have it?",
                    "Is that jacket I looked at last time still in stock?",
                ],
                "paraphrase": [
                    f"That {synonym} I was eyeing on my previous visit — still around?",
                    f"Remind me which {synonym} caught my eye most recently.",
                ],
            }
        else:
            questions = {
                "exact": [f"How much was the {short}?", f"Is {sku} still in stock?"],
                "topic": [f"Which {word} did I look at before?", f"What were those {word} again?"],
                "paraphrase": [
                    f"Which {synonym} caught my eye on an earlier visit?",
                    f"Remind me about that {synonym} I was eyeing.",
                ],
            }
        return Unit(
            "product/jacket" if jacket else "product",
            [(user, assistant)],
            None,
            short.split()[0],
            questions,
        )
