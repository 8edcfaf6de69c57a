"""The shoppers' set: shopper histories from the shop's catalog fixture, and their questions."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from benchmarks.recall.words import DEFAULT_SEED, KINDS, ROOT, Question, question_kind

CATALOG_PATH = ROOT / "shop" / "fixtures" / "catalog.json"
# A shopper may like two brands or colours: "which brands do I like?" is answered by both.
POOLED_TOPICS = ("brand", "colour/liked")

# --- vocabulary ----------------------------------------------------------------------------

SHOPPER_NAMES = (
    "Ana Ruiz", "Bruno Keller", "Chiara Conti", "Dmitri Orlov", "Elif Demir", "Farah Haddad",
    "Greta Lind", "Hugo Marchand", "Ines Duarte", "Jonas Berg", "Kaia Solberg", "Leon Vogel",
    "Mila Novak", "Nadia Rahman", "Oskar Nyberg", "Priya Nair", "Quentin Roux", "Rosa Ferreira",
    "Sami Laine", "Tove Eriksen", "Umar Qureshi", "Vera Kovacs", "Wim de Vries", "Ximena Rojas",
    "Yusuf Arslan", "Zofia Wozniak", "Aiko Tanaka", "Bram Janssen", "Carmen Vidal", "Dario Russo",
)  # fmt: skip
# People the shoppers buy for: rare first names, none shared with the shoppers above.
RECIPIENT_NAMES = (
    "Lena", "Theo", "Margit", "Anselm", "Isolde", "Rafferty", "Beatrix", "Caspian", "Dagny",
    "Emeric", "Fenna", "Gideon", "Hedda", "Ivo", "Jorunn", "Kasimir", "Liesel", "Matthias",
    "Noor", "Ottilie", "Pascal", "Rune", "Saskia", "Tobiah", "Ulla", "Valentin", "Wilma",
    "Xaver", "Ysolde", "Zeno", "Agathe", "Benedikt", "Clementine", "Dorian", "Eulalia",
    "Florian", "Gesine", "Hannes", "Ilse", "Jasper", "Kornelia", "Lorenz", "Magda", "Nepomuk",
    "Odile", "Philippa", "Quirin", "Roswitha", "Severin", "Thekla",
)  # fmt: skip
# (relation as said, a word for it that shares nothing, pronoun)
RELATIONS = (
    ("sister", "sibling", "she"),
    ("brother", "sibling", "he"),
    ("mum", "mother", "she"),
    ("dad", "father", "he"),
    ("husband", "spouse", "he"),
    ("wife", "spouse", "she"),
    ("son", "boy", "he"),
    ("daughter", "girl", "she"),
    ("best friend", "closest pal", "she"),
    ("colleague", "coworker", "he"),
    ("grandmother", "granny", "she"),
    ("nephew", "sibling's boy", "he"),
)
TOP_SIZES = ("XS", "S", "M", "L", "XL", "XXL")
SHOE_SIZES = tuple(str(n) for n in range(36, 47))
WAISTS = ("28", "29", "30", "31", "32", "33", "34", "36", "38")
LEGS = ("30", "32", "34")
BUDGETS = (40, 50, 60, 75, 80, 90, 100, 120, 150, 180, 200, 250, 300, 400)
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
CITIES = ("Vienna", "Lyon", "Porto", "Ghent", "Aarhus", "Bologna", "Krakow", "Tallinn")
# (occasion as said, what the shopper calls it later, a question that shares no word with it,
# how the fact names it)
OCCASIONS = (
    ("my {rel}'s wedding", "wedding", "When does my {para} get married?", "their {rel}'s wedding"),
    ("a job interview", "interview", "When am I meeting that potential employer?",
     "a job interview"),
    ("my graduation ceremony", "graduation", "When do I collect my degree?",
     "their graduation ceremony"),
    ("a christening", "christening", "When is the baby's baptism?", "a christening"),
    ("our anniversary dinner", "anniversary dinner",
     "When is the meal celebrating our years together?", "an anniversary dinner"),
    ("a hiking trip to the Dolomites", "hiking trip", "When am I off trekking in the mountains?",
     "a hiking trip to the Dolomites"),
    ("a beach holiday in Crete", "beach holiday", "When do I fly off to the seaside?",
     "a beach holiday in Crete"),
    ("the company gala", "gala", "When is that black-tie evening at work?", "the company gala"),
    ("a music festival", "festival", "When is the open-air concert weekend?", "a music festival"),
    ("my first day at a new job", "first day at the new job",
     "When do I start working for the new employer?", "their first day at a new job"),
)  # fmt: skip
# Category words a shopper uses, and words for the same garments that share nothing with them.
CATEGORY_WORDS = {
    "t-shirts": ("t-shirts", ("short-sleeved top", "casual top with short sleeves")),
    "shirts": ("shirts", ("button-up", "collared top")),
    "knitwear": ("jumpers", ("sweater", "woolly pullover", "cosy layer")),
    "jeans": ("jeans", ("five-pocket pants", "pair of pants")),
    "trousers": ("trousers", ("pants", "slacks")),
    "dresses": ("dresses", ("frock", "gown")),
    "skirts": ("skirts", ("flowy bottom piece", "thing I'd wear instead of pants")),
    "jackets": ("jackets", ("coat", "outer layer")),
    "sneakers": ("trainers", ("kicks", "athletic footwear")),
    "boots": ("boots", ("ankle-high footwear", "chunky footwear")),
    "sandals": ("sandals", ("open-toe footwear", "strappy footwear")),
}
DESIGNS = (
    ("I like slim-fit designs.", "The shopper prefers slim-fit designs."),
    ("Only natural fabrics for me, please.", "The shopper prefers natural fabrics."),
    ("I prefer minimalist designs without logos.", "The shopper prefers minimalist designs."),
    ("I go for relaxed, oversized cuts.", "The shopper prefers relaxed, oversized cuts."),
    ("Nothing too flashy, I like classic styles.", "The shopper prefers classic styles."),
)
FILLERS = (
    ("Can I return things I bought on sale?", "Yes, sale items can be returned within 30 days."),
    ("Do you do gift wrapping?", "We do — add it at checkout for €3."),
    ("It's pouring with rain here today.", "Sounds like a day for a waterproof!"),
    ("Has my last order shipped?", "Your confirmation email has a tracking link."),
    ("Is there a discount for students?", "Not at the moment, sorry."),
    ("Can I pay with PayPal?", "Yes, PayPal and all major cards."),
    (
        "What's your most popular item this week?",
        "Our bestsellers change daily — shall I show you what's trending?",
    ),
    ("How do I care for merino?", "Cool hand wash, and dry it flat."),
)
# How a shopper asks for products; {word} is a category word.
REQUESTS = (
    "Do you have any {word}?",
    "I'm looking for {word} for work.",
    "Show me some {word} for the weekend.",
    "Any {word} on sale?",
    "What {word} would you recommend?",
    "Which {word} are new this week?",
)
LEAD_INS = (
    "", "Quick question: ", "Before I forget, ", "Hmm, ", "Sorry, ", "One more thing: ",
    "By the way, ", "Just checking: ", "Out of curiosity, ", "Hey, ", "So, ", "OK, ",
    "Right, ", "Oh, ", "Also, ", "Wait, ",
)  # fmt: skip

# --- the generated set ---------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    """One shopper message and the assistant's answer: one turn block, maybe fact blocks."""

    key: str
    user: str
    assistant: str
    facts: tuple[str, ...] = ()

    @property
    def fact_keys(self) -> tuple[str, ...]:
        return tuple(f"{self.key}/fact{n}" for n in range(len(self.facts)))


@dataclass(frozen=True)
class Visit:
    session_id: str
    day: date
    exchanges: tuple[Exchange, ...]


@dataclass(frozen=True)
class Shopper:
    user_id: str
    name: str
    visits: tuple[Visit, ...]
    questions: tuple[Question, ...]

    def blocks(self) -> dict[str, str]:
        """Every block key of the history with its searchable text, in storage order."""
        return visit_texts(self.visits)

    @property
    def today_session_id(self) -> str:
        return f"session{len(self.visits) + 1}"


def visit_texts(visits: Iterable[Visit]) -> dict[str, str]:
    """Block key -> the block's text (a turn's two messages, or the fact), in storage order."""
    texts: dict[str, str] = {}
    for visit in visits:
        for exchange in visit.exchanges:
            texts[exchange.key] = f"{exchange.user}\n{exchange.assistant}"
            texts.update(zip(exchange.fact_keys, exchange.facts, strict=True))
    return texts


def say_date(day: date, fmt: int) -> str:
    if fmt == 0:
        return f"{day.day} {MONTHS[day.month - 1]}"
    if fmt == 1:
        return f"{MONTHS[day.month - 1]} {day.day}"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10 if day.day // 10 != 1 else 0, "th")
    return f"the {day.day}{suffix} of {MONTHS[day.month - 1]}"


def _price(product: dict) -> str:
    return f"€{float(product['price']):.2f}"


def _sizes_in_stock(product: dict) -> list[str]:
    return list(dict.fromkeys(v["size"] for v in product["variants"] if v["stock"] > 0))


def _colours(product: dict) -> list[str]:
    return list(dict.fromkeys(v["colour"] for v in product["variants"]))


def product_line(product: dict) -> str:
    """One product as the assistant lists it (name, price, brand, colours, sizes, SKU)."""
    sizes = ", ".join(_sizes_in_stock(product)) or "none right now"
    return (
        f"- **{product['name']}** — {_price(product)} · by {product['brand']} · "
        f"colours: {', '.join(_colours(product))} · sizes in stock: {sizes} · SKU {product['sku']}"
    )


@dataclass
class _Unit:
    """One thing a shopper tells the assistant, the exchanges that say it and its questions."""

    topic: str
    statements: list[tuple[str, str]]  # (shopper, assistant) for the first and any restatement
    fact: str | None
    needle: str  # the rare word an exact question shares with the answer
    questions: dict[str, list[str]]
    visit: int = -1
    keys: list[str] = field(default_factory=list)


class _Builder:
    """Generates one shopper's history and questions from a seeded random source."""

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
            and (colour is None or colour in _colours(p))
            and float(p["price"]) <= max_price
        ]
        return self.rng.choice(matching or pool)

    def _other(self, **where: Any) -> dict:
        """A product from a category this shopper never looks at on purpose."""
        return self._pick(self.other_categories, **where)

    # -- the history --

    def build(self) -> Shopper:
        rng = self.rng
        user_id = f"recall-{self.seed}-{self.number:03d}"
        visit_count = rng.randint(5, 15)
        days = [date(2025, 1, 6) + timedelta(days=rng.randint(0, 60))]
        for _ in range(visit_count - 1):
            days.append(days[-1] + timedelta(days=rng.randint(4, 30)))
        units, designs, occasion_days = self._units(days)

        # Place the statements: each in a random visit but the last, where the jacket is seen;
        # a third of sizes, budgets and brands are said again on a later visit.
        placed: list[list[tuple[_Unit, int]]] = [[] for _ in range(visit_count)]
        for unit in units + designs:
            if unit.topic != "product/jacket":
                unit.visit = rng.randrange(visit_count - 1)
            placed[unit.visit].append((unit, 0))
            if len(unit.statements) > 1 and unit.visit < visit_count - 1:
                placed[rng.randint(unit.visit + 1, visit_count - 1)].append((unit, 1))
        taken = {(d.day, d.month) for d in occasion_days}
        visits = [
            self._visit(user_id, number, day, placed[number], taken)
            for number, day in enumerate(days)
        ]
        questions = [
            question
            for n, unit in enumerate(units)
            if (question := self._question(unit, f"{user_id}/q{n + 1}", visits, units)) is not None
        ]
        name = SHOPPER_NAMES[self.number % len(SHOPPER_NAMES)]
        return Shopper(user_id, name, tuple(visits), tuple(questions))

    def _units(self, days: list[date]) -> tuple[list[_Unit], list[_Unit], list[date]]:
        """What this shopper will say: units with questions, design facts, occasion dates."""
        rng = self.rng
        categories = sorted(CATEGORY_WORDS)
        featured_categories = rng.sample([c for c in categories if c != "jackets"], 3)
        featured = [
            rng.choice([p for p in self.catalog if p["category"] == c]) for c in featured_categories
        ]
        jacket = rng.choice([p for p in self.catalog if p["category"] == "jackets"])
        self.featured_skus = {p["sku"] for p in [*featured, jacket]}
        self.other_categories = [
            c for c in categories if c not in featured_categories and c != "jackets"
        ]
        units = [self._top_size(), self._waist(), self._shoe_size(), self._budget()]
        brands = rng.sample(sorted({p["brand"] for p in self.catalog}), rng.randint(1, 2))
        units += [self._brand(b) for b in brands]
        colours = rng.sample(sorted({c for p in self.catalog for c in _colours(p)}), 4)
        units += [self._colour(c, liked=True) for c in colours[: rng.randint(1, 2)]]
        units.append(self._colour(colours[3], liked=False))
        relations = rng.sample(RELATIONS, 2)
        occasion_days = []
        for occasion in rng.sample(OCCASIONS, rng.randint(1, 2)):
            # Said on a visit before the last, about a day some weeks after it.
            day = days[rng.randrange(len(days) - 1)] + timedelta(days=rng.randint(14, 80))
            occasion_days.append(day)
            units.append(self._occasion(occasion, day, relations[0]))
        for relation in relations[: rng.randint(1, 2)]:
            units.append(self._person(relation, self.recipients.pop()))
        units += [self._product(product) for product in featured]
        jacket_unit = self._product(jacket, jacket=True)
        jacket_unit.visit = len(days) - 1
        units.append(jacket_unit)
        designs = [
            _Unit("design", [(u, "Good to know, I'll keep that in mind.")], f, "", {})
            for u, f in rng.sample(DESIGNS, rng.randint(0, 2))
        ]
        return units, designs, occasion_days

    def _visit(
        self,
        user_id: str,
        number: int,
        day: date,
        says: list[tuple[_Unit, int]],
        taken: set[tuple[int, int]],
    ) -> Visit:
        """One visit: its statements among small talk and other products, in random order."""
        rng = self.rng
        fillers = [
            self._filler(kind, day, taken)
            for kind in rng.sample(range(self.FILLER_KINDS), rng.randint(2, 7))
        ]
        middle: list[tuple[_Unit | None, tuple[str, str]]] = [
            (unit, unit.statements[n]) for unit, n in says
        ] + [(None, f) for f in fillers]
        rng.shuffle(middle)
        if rng.random() < 0.6:
            middle.insert(0, (None, self._greeting()))
        if rng.random() < 0.5:
            middle.append((None, self._goodbye()))
        exchanges: list[Exchange] = []
        position = 0
        while position < len(middle):
            unit, (user, assistant) = middle[position]
            together = [unit]
            after = middle[position + 1] if position + 1 < len(middle) else None
            # Now and then two statements arrive in one message.
            if unit and unit.fact and after and after[0] and after[0].fact and rng.random() < 0.2:
                user, assistant = f"{user} {after[1][0]}", f"{assistant} {after[1][1]}"
                together.append(after[0])
                position += 1
            position += 1
            key = f"{user_id}/session{number + 1}/e{len(exchanges) + 1}"
            facts = tuple(u.fact for u in together if u is not None and u.fact)
            exchange = Exchange(key=key, user=user, assistant=assistant, facts=facts)
            fact_keys = iter(exchange.fact_keys)
            for said in together:
                if said is not None:
                    said.keys.append(exchange.key)
                    if said.fact:
                        said.keys.append(next(fact_keys))
            exchanges.append(exchange)
        return Visit(f"session{number + 1}", day, tuple(exchanges))

    def _question(
        self, unit: _Unit, key: str, visits: list[Visit], units: list[_Unit]
    ) -> Question | None:
        """One question for the unit, of a kind drawn at random, its kind checked on its words.

        An exact question names its unit's brand or colour; the others ("which brands do I
        like?") are answered by every unit of the same topic.
        """
        texts = visit_texts(visits)
        kinds = list(KINDS)
        self.rng.shuffle(kinds)
        for kind in kinds:
            keys = unit.keys
            if kind != "exact" and unit.topic in POOLED_TOPICS:
                keys = [k for other in units if other.topic == unit.topic for k in other.keys]
            answers = [texts[k] for k in keys]
            templates = list(unit.questions.get(kind, []))
            self.rng.shuffle(templates)
            for template in templates:
                lead_ins = list(LEAD_INS)
                self.rng.shuffle(lead_ins)
                for lead_in in lead_ins[:6]:
                    text = lead_in + (template[0].lower() + template[1:] if lead_in else template)
                    if text in self.asked:
                        continue
                    if question_kind(text, unit.needle, answers) != kind:
                        break  # the template itself is of another kind: try the next one
                    self.asked.add(text)
                    return Question(key, text, kind, unit.topic, tuple(keys))
        return None

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

    def _top_size(self) -> _Unit:
        s = self.rng.choice(TOP_SIZES)
        return _Unit(
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

    def _waist(self) -> _Unit:
        w, leg = self.rng.choice(WAISTS), self.rng.choice(LEGS)
        return _Unit(
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

    def _shoe_size(self) -> _Unit:
        n = self.rng.choice(SHOE_SIZES)
        return _Unit(
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

    def _budget(self) -> _Unit:
        b = self.rng.choice(BUDGETS)
        return _Unit(
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

    def _brand(self, brand: str) -> _Unit:
        return _Unit(
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

    def _colour(self, colour: str, *, liked: bool) -> _Unit:
        if liked:
            statement = self.rng.choice(
                [
                    f"I'm really into {colour} at the moment.",
                    f"{colour.capitalize()} is my favourite colour.",
                    f"I love wearing {colour}.",
                ]
            )
            return _Unit(
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
        return _Unit(
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
    ) -> _Unit:
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
        return _Unit(
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

    def _person(self, relation: tuple[str, str, str], name: str) -> _Unit:
        rel, para, pronoun = relation
        size = self.rng.choice(TOP_SIZES)
        colour = self.rng.choice(["green", "navy", "red", "beige", "pink", "olive", "grey"])
        statement = self.rng.choice(
            [
                f"I'm shopping for my {rel} {name} today — {pronoun} takes a {size} and loves {colour}.",
                f"It's a present for my {rel} {name}; {pronoun}'s a {size}, mad about {colour}.",
            ]
        )
        return _Unit(
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

    def _product(self, product: dict, *, jacket: bool = False) -> _Unit:
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
        return _Unit(
            "product/jacket" if jacket else "product",
            [(user, assistant)],
            None,
            short.split()[0],
            questions,
        )

    # -- what else is said on a visit --

    def _greeting(self) -> tuple[str, str]:
        return self.rng.choice(
            [
                ("Hi!", "Hello! What can I help you find today?"),
                ("Hello again.", "Welcome back! What are you looking for today?"),
                ("Hey there", "Hi! Looking for anything in particular?"),
                ("Good morning!", "Good morning! How can I help?"),
            ]
        )

    def _goodbye(self) -> tuple[str, str]:
        return self.rng.choice(
            [
                ("Thanks, that's all for today.", "You're welcome — see you soon!"),
                ("Great, thank you!", "Happy to help. Enjoy your day!"),
                ("I'll think about it.", "Of course — take your time."),
                ("Bye for now.", "Bye! Come back any time."),
            ]
        )

    FILLER_KINDS = 12 + len(FILLERS)

    def _filler(self, kind: int, day: date, taken: set[tuple[int, int]]) -> tuple[str, str]:
        """Small talk, and talk about sizes, colours, brands, prices and dates of other things.

        None of it answers a question; much of it shares words or topics with the questions.
        """
        rng = self.rng
        product = self._other()
        name = product["name"]
        if kind <= 3:
            category = rng.choice(self.other_categories)
            ask = rng.choice(REQUESTS).format(word=CATEGORY_WORDS[category][0])
            return ask, self._listing(category, rng.randint(1, 3))
        if kind == 4:
            city = rng.choice(CITIES)
            return (
                f"How long does delivery to {city} take?",
                f"Standard delivery to {city} takes 2-4 working days; express arrives next day.",
            )
        if kind in (5, 6):
            arrive = day + timedelta(days=rng.randint(3, 40))
            while (arrive.day, arrive.month) in taken:
                arrive += timedelta(days=1)
            if kind == 5:
                return (
                    f"If I order now, will it arrive by {say_date(arrive, rng.choice((0, 1)))}?",
                    f"Yes — ordered today, it should arrive by {say_date(arrive, 0)}.",
                )
            return (
                "When does the next sale start?",
                f"The next sale starts on {say_date(arrive, 0)}.",
            )
        if kind == 7:
            fit = rng.choice(["runs small", "runs large", "is true to size"])
            return (
                f"Does the {name} run small?",
                f"The **{name}** {fit}; most shoppers take their usual size.",
            )
        if kind == 8:
            return (
                f"What colours does the {name} come in?",
                f"The **{name}** comes in {', '.join(_colours(product))}.",
            )
        if kind == 9:
            brands = sorted({p["brand"] for p in self.catalog})
            return "Which brands do you carry?", f"We carry {', '.join(brands)}."
        if kind == 10:
            return f"Is the {name} on sale?", f"Not right now — it's {_price(product)}."
        if kind == 11:
            friend = rng.choice([n for n in RECIPIENT_NAMES if n not in self.names_used])
            return f"My neighbour {friend} recommended your shop.", f"How kind of {friend}!"
        return FILLERS[kind - 12]


def dataset_generate(*, shoppers: int, seed: int = DEFAULT_SEED) -> list[Shopper]:
    """The whole set: `shoppers` histories, the same for the same arguments on every run."""
    catalog = json.loads(CATALOG_PATH.read_text())
    catalog = [p for p in catalog if p.get("active", True)]
    rng = random.Random(seed)
    asked: set[str] = set()
    result = []
    for number in range(shoppers):
        builder = _Builder(
            rng=random.Random(rng.randrange(2**32)),
            catalog=catalog,
            number=number,
            seed=seed,
            # Names are unique within a history; another shopper may buy for a Lena too.
            recipients=rng.sample(RECIPIENT_NAMES, 2),
            asked=asked,
        )
        result.append(builder.build())
    return result


def describe(shoppers: list[Shopper]) -> str:
    visits = [len(s.visits) for s in shoppers]
    blocks = [len(s.blocks()) for s in shoppers]
    questions = [q for s in shoppers for q in s.questions]
    kinds = Counter(q.kind for q in questions)
    topics = Counter(q.topic for q in questions)
    return (
        f"{len(shoppers)} shoppers, {sum(visits)} visits ({min(visits)}-{max(visits)} each), "
        f"{sum(blocks)} blocks ({min(blocks)}-{max(blocks)} per shopper), "
        f"{len(questions)} questions: "
        + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
        + "; by topic: "
        + ", ".join(f"{t} {n}" for t, n in sorted(topics.items()))
    )
