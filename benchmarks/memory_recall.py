"""Retrieval benchmark: does a later turn's search find the memories that answer it?

    .venv/bin/python benchmarks/memory_recall.py [--shoppers 40] [--conversations 10]
        [--seed 7] [--embedders hashing,minilm] [--modes dense,lexical,hybrid] [--in-process]
        [--quick]

Two generated sets, one table each.

Shoppers. A deterministic set of shopper histories from the shop's catalog fixture: each
shopper visits 5-15 times and states sizes per garment type, brands, colours liked and
disliked, a budget, dated occasions and the people they buy for; they look at products (one
jacket on their last visit) and chat about delivery, returns and other products in between.
Every visit is one Agent Memory session; every exchange is stored through the SDK exactly as
the memory policy stores it (a turn block per exchange, `type: turn`, context required,
dated; the facts a judge would keep in their own request, `type: fact`, TTL 0, no
extraction). The histories are then asked the questions a later turn would ask ("what's my
shoe size?", "is the jacket from last time still there?"), each labelled with the blocks that
answer it, from a fresh session searching all of the shopper's sessions like the app's
recall.

Conversations (the regime of public long-conversation sets): two friends chatting over 12-20
dated sessions, every turn stored as one block ("Name: what they said", the first speaker's
turns as user content, the other's as assistant content, context required). Each tells the
other about a class they tried, a pet, a trip, a relative moving in, a promotion, an
instrument, a book, a race and an old friend met again, some kinds twice, among reactions,
follow-ups, later talk naming the same pet, place or person, and small talk. Each question
("When did Gina go to Tbilisi?") is about one thing one speaker said and is answered by that
one turn.

Questions come in three kinds, measured on their words rather than assumed: `exact` shares
the rare word (brand, size, date, name, product, place) with its answer, `topic` shares only
common words, `paraphrase` shares no content word at all.

For each embedder the sets are stored once; the server then restarts on the same data once
per search mode (AGENT_MEMORY_SEARCH_MODE). Figures: recall@5 / recall@10 (the share of a
question's answering blocks in the top 5 / 10, averaged over questions), hit@5 / hit@10 (the
share of questions with at least one answering block there) and the search time over HTTP
through the SDK. A plain BM25 ranking over the same texts, computed here in-process, is the
reference line. Every query text is distinct (the server caches query vectors), and the
figures other than timings are the same on every run with the same seed.

`--in-process` ranks with the server's own code (embedder, extractive extractor, terms,
index, fusion) in this process instead of through a server: the same recall figures (a test
checks it against a live server), no timings, in seconds rather than minutes, for trying a
change to the ranking on the whole set.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from agentmemory import AgentMemoryClient
from agentmemory.models import MemoryBlockStatus

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CATALOG_PATH = ROOT / "shop" / "fixtures" / "catalog.json"
DEFAULT_SEED = 7
RELEVANT_K = 10
# The memory policy's default retention for a session's turns (90 days); facts never expire.
SESSION_TTL_SECONDS = 90 * 86400
KINDS = ("exact", "topic", "paraphrase")
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

# Words too common to count as shared between a question and its answer.
STOP_WORDS = frozenset(
    """a about above after again all also am an and any anything are as at be been before
    being below between both but by can could did do does doing don down during each else
    ever few for from further get got had has have having he her here hers herself him
    himself his how i if in into is it its itself just let like me more most my myself no
    nor not now of off oh ok on once one only or other our ours ourselves out over own
    please quick re really right same she should so some something still such sure
    than that the their theirs them themselves then there these they this those through
    to too under until up us very was way we were what when where which while who whom why
    will with would you your yours yourself yourselves hey hmm sorry wait thing things
    question checking curiosity forget by""".split()
)
_TOKEN = re.compile(r"[a-z0-9]+")
# A word with its clitic ("it's", "don't"), so the clitic is not mistaken for size S or T.
_WORD = re.compile(r"([a-z0-9]+)(?:'[a-z]+)?")


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
class Question:
    key: str
    text: str
    kind: str  # exact | topic | paraphrase
    topic: str
    answers: tuple[str, ...]  # block keys


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


def stem(word: str) -> str:
    """A crude stemmer: good enough to say whether two texts share a word."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def content_stems(text: str) -> set[str]:
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    return {stem(w) for w in words if w not in STOP_WORDS}


def shares_words(a: str, b: str) -> bool:
    """True when the texts share a content word (a stem, or one stem a prefix of the other)."""
    left, right = content_stems(a), content_stems(b)
    if left & right:
        return True
    return any(
        len(x) >= 4 and len(y) >= 4 and (x.startswith(y) or y.startswith(x))
        for x in left
        for y in right
    )


def _say(day: date, fmt: int) -> str:
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
        when = _say(day, self.rng.choice((0, 0, 1, 2)))
        statement = self.rng.choice(
            [
                f"I need something to wear to {said} on {when}.",
                f"I'm shopping for {said} — it's on {when}.",
            ]
        )
        return _Unit(
            "occasion",
            [self._said(statement, "How exciting! This could work for it.", max_price=10_000)],
            f"The shopper is shopping for {as_fact} on {_say(day, 0)}.",
            str(day.day),
            {
                "exact": [
                    f"What have I got coming up on {_say(day, self.rng.choice((0, 1)))}?",
                    f"Is anything happening on {_say(day, 0)}?",
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
                    f"If I order now, will it arrive by {_say(arrive, rng.choice((0, 1)))}?",
                    f"Yes — ordered today, it should arrive by {_say(arrive, 0)}.",
                )
            return "When does the next sale start?", f"The next sale starts on {_say(arrive, 0)}."
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


def question_kind(text: str, needle: str, answers: list[str]) -> str:
    """exact: shares the rare word; paraphrase: shares no content word; else topic."""
    needle_stem = stem(needle.lower())
    if (
        needle
        and needle_stem in content_stems(text)
        and any(needle_stem in content_stems(a) for a in answers)
    ):
        return "exact"
    if not any(shares_words(text, a) for a in answers):
        return "paraphrase"
    return "topic"


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


# --- the conversational set ----------------------------------------------------------------
#
# Two friends chatting over many sessions, each turn stored as one block (the regime of
# public long-conversation sets): what they did, with whom, where and when, told among
# reactions, follow-ups and small talk that share the same everyday words. Every question
# is about one thing one of them said and is answered by that one turn.

SPEAKERS = (
    "Caroline", "Melanie", "Joanna", "Nate", "Tim", "John", "Audrey", "Andrew", "Maria",
    "Deborah", "Jolene", "Evan", "Sam", "Calvin", "Dave", "Gina", "Jon", "Gerald", "Priya",
    "Tomas",
)  # fmt: skip
CHAT_PLACES = (
    "Lisbon", "Galway", "Kyoto", "Oaxaca", "Bergen", "Tbilisi", "Cusco", "Hobart", "Ljubljana",
    "Marrakesh", "Quebec", "Seville",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# (as said, what a question calls it, words for it that share nothing)
CHAT_CLASSES = (
    ("a pottery class", "pottery class", "making bowls out of clay"),
    ("salsa lessons", "salsa lessons", "Latin dancing"),
    ("a watercolour workshop", "watercolour workshop", "painting course"),
    ("a bouldering session", "bouldering session", "indoor rock climbing"),
    ("a sourdough baking course", "sourdough course", "learning to make bread"),
    ("a beginners' Italian class", "Italian class", "studying a foreign language"),
    ("a first aid course", "first aid course", "training in emergency care"),
    ("a woodworking evening", "woodworking evening", "building furniture by hand"),
)
# (animal, young name, a word for it that shares nothing)
CHAT_PETS = (
    ("dog", "puppy", "canine"), ("cat", "kitten", "feline"), ("rabbit", "bunny", "long-eared"),
    ("parrot", "chick", "talking bird"), ("tortoise", "hatchling", "slow reptile"),
)  # fmt: skip
PET_NAMES = ("Biscuit", "Pepper", "Mochi", "Ziggy", "Olive", "Bruno", "Luna", "Kiwi", "Nacho")
CHAT_RELATIVES = (
    ("sister", "sibling"), ("brother", "sibling"), ("cousin", "relative"), ("aunt", "relative"),
    ("grandad", "grandparent"), ("niece", "relative"),
)  # fmt: skip
CHAT_PEOPLE = (
    "Rowan", "Imogen", "Bastian", "Noemi", "Cyrus", "Maelle", "Tobin", "Esme", "Leif", "Saoirse",
    "Idris", "Marisol", "Anouk", "Casimir",
)  # fmt: skip
CHAT_JOBS = (
    ("team lead", "the bakery chain", "leading a group"),
    ("head nurse", "the children's hospital", "running a ward"),
    ("senior designer", "the game studio", "creative position"),
    ("assistant principal", "the primary school", "managing teachers"),
    ("project manager", "the solar start-up", "coordinating deliveries"),
)
CHAT_INSTRUMENTS = (
    ("ukulele", "small four-string"), ("cello", "big bowed"), ("keyboard", "electric piano"),
    ("trumpet", "brass horn"), ("drum kit", "percussion set"),
)  # fmt: skip
CHAT_BOOKS = (
    ("The Overstory", "Richard Powers", "trees"),
    ("Piranesi", "Susanna Clarke", "a house of endless halls"),
    ("Educated", "Tara Westover", "growing up without school"),
    ("The Remains of the Day", "Kazuo Ishiguro", "an English butler"),
    ("Station Eleven", "Emily St. John Mandel", "a travelling theatre after a pandemic"),
)
CHAT_RACES = (
    ("half marathon", "twenty-one kilometre run"),
    ("charity 10k", "fundraising run"),
    ("triathlon", "swim-bike-run event"),
    ("cycling sportive", "long group bike ride"),
)  # fmt: skip
CHAT_REACTIONS = (
    "Wow, that's amazing!", "That sounds like so much fun.", "I'm so happy for you!",
    "Haha, that is so you.", "Oh nice, tell me more!", "That's wonderful news.",
    "No way! How did it go?", "I love that for you.", "That must have been a lot of work.",
    "Good for you, seriously.", "How exciting!", "Aw, that's really sweet.",
)  # fmt: skip
CHAT_SMALL_TALK = (
    "Work has been so busy this week, I barely had time to think.",
    "The weather here has been awful, rain every single day.",
    "I finally cleaned out the garage over the weekend.",
    "Did you watch anything good lately? I need a new show.",
    "I've been trying to go to bed earlier, with mixed results.",
    "We had a quiet weekend at home, which was exactly what I needed.",
    "My phone died in the middle of the day and I felt totally lost.",
    "I made a huge pot of soup and we've been eating it all week.",
    "I keep meaning to call my parents more often.",
    "Honestly I just need a holiday at this point.",
    "The kids next door have taken up the drums, so that's fun.",
    "I went for a long walk by the river this morning, it cleared my head.",
    "I've been so tired lately, I think I need more coffee.",
    "We tried a new recipe last night and it was a disaster, haha.",
    "It's been a while since we talked, how have you been?",
    "Things are pretty calm here, nothing new really.",
    "I'm thinking about redecorating the living room.",
    "Can't believe how fast this year is going.",
)  # fmt: skip


@dataclass(frozen=True)
class Turn:
    key: str
    speaker: str
    text: str

    @property
    def block(self) -> str:
        """The block's text as stored: the speaker's name, then what they said."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Chat:
    session_id: str
    day: date
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Conversation:
    user_id: str
    speakers: tuple[str, str]
    chats: tuple[Chat, ...]
    questions: tuple[Question, ...]

    def blocks(self) -> dict[str, str]:
        return {t.key: t.block for chat in self.chats for t in chat.turns}

    @property
    def today_session_id(self) -> str:
        return f"session{len(self.chats) + 1}"


@dataclass
class _Event:
    """One thing a speaker tells the other, a follow-up about it and its questions."""

    topic: str
    statement: str
    follow_up: tuple[str, str]  # (the friend's question, the speaker's answer)
    needle: str
    questions: dict[str, list[str]]
    # Later talk about the same thing (the friend asks, the speaker answers): it names the
    # same pet, place or person without being what a question asks.
    echoes: tuple[tuple[str, str], ...] = ()
    key: str = ""


class _ChatBuilder:
    """Generates one conversation between two speakers from a seeded random source."""

    def __init__(self, *, rng: random.Random, number: int, seed: int, asked: set[str]):
        self.rng = rng
        self.number = number
        self.seed = seed
        self.asked = asked
        self._left: dict[tuple[str, int], list[Any]] = {}

    def _draw(self, speaker: str, table: tuple) -> Any:
        """A value of the table this speaker has not used yet: each event is told once."""
        left = self._left.get((speaker, id(table)))
        if not left:
            left = self._left[(speaker, id(table))] = self.rng.sample(table, len(table))
        return left.pop()

    def build(self) -> Conversation:
        rng = self.rng
        user_id = f"chat-{self.seed}-{self.number:03d}"
        a, b = rng.sample(SPEAKERS, 2)
        sessions = rng.randint(12, 20)
        days = [date(2023, 3, 1) + timedelta(days=rng.randint(0, 20))]
        for _ in range(sessions - 1):
            days.append(days[-1] + timedelta(days=rng.randint(5, 25)))
        people = rng.sample(CHAT_PEOPLE, len(CHAT_PEOPLE))
        events: list[tuple[str, int, _Event]] = []
        for speaker in (a, b):
            makers = [self._class, self._pet, self._trip, self._relative, self._job,
                      self._instrument, self._book, self._race, self._friend_name]  # fmt: skip
            # Some kinds come up twice for a speaker (two classes, two trips), so a
            # question's words alone do not pick out its one answer.
            chosen = makers + rng.sample(makers, 3)
            for make in chosen:
                day = rng.randrange(sessions)
                events.append((speaker, day, make(speaker, days[day], people)))
        echoed: list[list[tuple[str, tuple[str, str]]]] = [[] for _ in days]
        for speaker, day, event in events:
            for echo in event.echoes:
                if day + 1 < sessions:
                    echoed[rng.randint(day + 1, sessions - 1)].append((speaker, echo))
        chats = []
        for n, day in enumerate(days):
            told = [(s, e) for s, d, e in events if d == n]
            chats.append(self._chat(user_id, n, day, (a, b), told, echoed[n]))
        blocks = {t.key: t.block for chat in chats for t in chat.turns}
        questions = []
        for speaker, _, event in events:
            question = self._question(speaker, event, blocks, f"{user_id}/q{len(questions) + 1}")
            if question is not None:
                questions.append(question)
        return Conversation(user_id, (a, b), tuple(chats), tuple(questions))

    def _chat(
        self,
        user_id: str,
        number: int,
        day: date,
        speakers: tuple[str, str],
        told: list[tuple[str, _Event]],
        echoed: list[tuple[str, tuple[str, str]]],
    ) -> Chat:
        rng = self.rng
        lines: list[tuple[str, str, _Event | None]] = []
        opener = rng.choice(speakers)
        other = speakers[1] if opener == speakers[0] else speakers[0]
        lines.append((opener, rng.choice([f"Hey {other}! How's it going?",
                                          f"Hi {other}, long time no talk!",
                                          f"Morning {other}! Got a minute?"]), None))  # fmt: skip
        lines.append((other, rng.choice(["Hey! All good here, you?", "Hi! Busy but fine.",
                                         "Always for you. What's new?"]), None))  # fmt: skip
        parts: list[list[tuple[str, str, _Event | None]]] = []
        for speaker, event in told:
            friend = speakers[1] if speaker == speakers[0] else speakers[0]
            part = [(speaker, event.statement, event), (friend, rng.choice(CHAT_REACTIONS), None)]
            if rng.random() < 0.7:
                part += [(friend, event.follow_up[0], None), (speaker, event.follow_up[1], None)]
            parts.append(part)
        for speaker, (asked, answered) in echoed:
            friend = speakers[1] if speaker == speakers[0] else speakers[0]
            parts.append([(friend, asked, None), (speaker, answered, None)])
        for _ in range(rng.randint(3, 8)):
            speaker = rng.choice(speakers)
            friend = speakers[1] if speaker == speakers[0] else speakers[0]
            part = [(speaker, rng.choice(CHAT_SMALL_TALK), None)]
            if rng.random() < 0.6:
                part.append((friend, rng.choice(CHAT_REACTIONS), None))
            parts.append(part)
        rng.shuffle(parts)
        for part in parts:
            lines += part
        lines.append((rng.choice(speakers), rng.choice(["Talk soon!", "Anyway, I have to run.",
                                                       "Let's catch up again soon."]), None))  # fmt: skip
        turns = []
        for position, (speaker, text, event) in enumerate(lines):
            key = f"{user_id}/session{number + 1}/t{position + 1}"
            if event is not None:
                event.key = key
            turns.append(Turn(key, speaker, text))
        return Chat(f"session{number + 1}", day, tuple(turns))

    def _question(
        self, speaker: str, event: _Event, blocks: dict[str, str], key: str
    ) -> Question | None:
        kinds = list(KINDS)
        self.rng.shuffle(kinds)
        answer = blocks[event.key]
        for kind in kinds:
            templates = list(event.questions.get(kind, []))
            self.rng.shuffle(templates)
            for template in templates:
                text = template.format(name=speaker)
                if text in self.asked:
                    continue
                # The speaker's name is in the question and in every turn they say: a
                # name shared that way says nothing about the kind.
                words = blocks[event.key].split(": ", 1)[1]
                if question_kind(text.replace(speaker, ""), event.needle, [words]) != kind:
                    continue
                self.asked.add(text)
                return Question(key, text, kind, event.topic, (event.key,))
        del answer
        return None

    def _when(self, day: date) -> str:
        rng = self.rng
        choice = rng.randrange(4)
        if choice == 0:
            return "yesterday"
        if choice == 1:
            return f"last {rng.choice(WEEKDAYS)}"
        if choice == 2:
            return "last weekend"
        return f"on {_say(day - timedelta(days=rng.randint(2, 9)), 0)}"

    # -- what a speaker tells the other --

    def _class(self, name: str, day: date, people: list[str]) -> _Event:
        said, called, other = self._draw(name, CHAT_CLASSES)
        when = self._when(day)
        return _Event(
            "class",
            self.rng.choice(
                [
                    f"I went to {said} {when} and I'm already hooked.",
                    f"Guess what, I finally tried {said} {when}!",
                ]
            ),
            ("How was it? Would you go again?", "Definitely, it was fun and I met nice people."),
            called.split()[0],
            {
                "exact": [
                    f"When did {{name}} go to the {called}?",
                    f"What did {{name}} think of the {called}?",
                ],
                "topic": ["What class did {name} try?", "Which course did {name} sign up for?"],
                "paraphrase": [f"When was {{name}} {other}?"],
            },
            (
                (f"Are you still going to the {called}?", "Every week! I am getting better at it."),
                (f"Did you go back to the {called}?", "Twice, I even brought a friend along."),
            ),
        )

    def _pet(self, name: str, day: date, people: list[str]) -> _Event:
        animal, young, other = self._draw(name, CHAT_PETS)
        pet = self._draw(name, PET_NAMES)
        return _Event(
            "pet",
            self.rng.choice(
                [
                    f"We adopted a {young} {self._when(day)}! We named it {pet}.",
                    f"Meet {pet}, our new {animal} — we brought it home {self._when(day)}.",
                ]
            ),
            ("Send me pictures!", "I will, it is the cutest thing ever."),
            pet,
            {
                "exact": [f"Is {pet} {{name}}'s pet?", f"What kind of animal is {{name}}'s {pet}?"],
                "topic": [
                    f"What is the name of {{name}}'s {animal}?",
                    "What pet did {name} adopt?",
                ],
                "paraphrase": [f"What is {{name}}'s {other} companion called?"],
            },
            (
                (f"How is {pet} doing?", f"{pet} chewed through a cable last night, so: lively."),
                (f"Is {pet} settling in?", f"Yes, {pet} sleeps on my feet every night now."),
            ),
        )

    def _trip(self, name: str, day: date, people: list[str]) -> _Event:
        place = self._draw(name, CHAT_PLACES)
        return _Event(
            "trip",
            self.rng.choice(
                [
                    f"I just got back from {place}, we went {self._when(day)}.",
                    f"We spent a few days in {place} — left {self._when(day)}.",
                ]
            ),
            ("What was the best part?", "The food, honestly. And the long walks."),
            place,
            {
                "exact": [
                    f"When did {{name}} go to {place}?",
                    f"What did {{name}} like about {place}?",
                ],
                "topic": ["Where did {name} travel?", "Which city did {name} just get back from?"],
                "paraphrase": ["Where was {name}'s most recent holiday?"],
            },
            (
                (f"Do you miss {place}?", "All the time, I would go back tomorrow."),
                (f"Did you ever post the {place} photos?", "Not yet, there are hundreds of them."),
            ),
        )

    def _relative(self, name: str, day: date, people: list[str]) -> _Event:
        rel, other = self._draw(name, CHAT_RELATIVES)
        person = people.pop()
        return _Event(
            "person",
            f"My {rel} {person} is moving in with us next month, so it'll be a full house.",
            ("Are you ready for that?", "Not really, but we'll make it work."),
            person,
            {
                "exact": [
                    f"Who is {person} to {{name}}?",
                    f"When is {person} moving in with {{name}}?",
                ],
                "topic": ["Which family member is moving in with {name}?"],
                "paraphrase": [f"Which {other} is coming to share {{name}}'s home?"],
            },
            ((f"How is it with {person} at home?", "Loud, but lovely. We cook together a lot."),),
        )

    def _job(self, name: str, day: date, people: list[str]) -> _Event:
        role, where, other = self._draw(name, CHAT_JOBS)
        return _Event(
            "job",
            f"Big news: I got promoted to {role} at {where} {self._when(day)}!",
            ("You deserve it. Is there more pay?", "A bit more, and a lot more meetings."),
            role.split()[-1],
            {
                "exact": [
                    f"When did {{name}} become {role}?",
                    f"Where did {{name}} become {role}?",
                ],
                "topic": ["What promotion did {name} get?", "What is {name}'s new job title?"],
                "paraphrase": [f"Is {{name}} now {other}?"],
            },
            ((f"How is life as {role}?", "Meetings, meetings and more meetings."),),
        )

    def _instrument(self, name: str, day: date, people: list[str]) -> _Event:
        instrument, other = self._draw(name, CHAT_INSTRUMENTS)
        return _Event(
            "instrument",
            f"I bought a second-hand {instrument} {self._when(day)} and I'm teaching myself.",
            ("Can you play anything yet?", "Two songs, badly. The neighbours love me."),
            instrument.split()[0],
            {
                "exact": [
                    f"When did {{name}} buy the {instrument}?",
                    f"Is {{name}} learning the {instrument}?",
                ],
                "topic": ["What instrument did {name} buy?", "What is {name} teaching themselves?"],
                "paraphrase": [f"Which {other} does {{name}} practise?"],
            },
            (
                (f"How is the {instrument} going?", "I learned a new song this week!"),
                (
                    f"Are you still playing the {instrument}?",
                    "Every evening, the neighbours are thrilled.",
                ),
            ),
        )

    def _book(self, name: str, day: date, people: list[str]) -> _Event:
        title, author, about = self._draw(name, CHAT_BOOKS)
        return _Event(
            "book",
            f"I'm reading {title} by {author} at the moment, I can't put it down.",
            ("What's it about?", f"It's about {about}, and it's beautifully written."),
            author.split()[-1],
            {
                "exact": [
                    f"Which book by {author} is {{name}} reading?",
                    f"What does {{name}} think of {author}?",
                ],
                "topic": ["What book is {name} reading?", "Which novel can't {name} put down?"],
                "paraphrase": ["What story has {name} been hooked on lately?"],
            },
            ((f"Did you finish {title}?", "Almost, I am saving the last chapter."),),
        )

    def _race(self, name: str, day: date, people: list[str]) -> _Event:
        race, other = self._draw(name, CHAT_RACES)
        place = self._draw(name, CHAT_PLACES)
        when = _say(day + timedelta(days=self.rng.randint(20, 60)), 0)
        return _Event(
            "race",
            f"I signed up for the {place} {race} on {when}, wish me luck.",
            ("Are you training for it?", "Three times a week, and I'm sore every time."),
            race.split()[-1],
            {
                "exact": [f"When is {{name}}'s {race}?", f"Where is {{name}}'s {race}?"],
                "topic": ["What race did {name} sign up for?", "What is {name} training for?"],
                "paraphrase": [f"When is {{name}} doing that {other}?"],
            },
            (
                (
                    f"How is the training for the {race} going?",
                    "I ran fifteen kilometres on Sunday!",
                ),
                (f"Nervous about the {race}?", "A little. Mostly about the hills."),
            ),
        )

    def _friend_name(self, name: str, day: date, people: list[str]) -> _Event:
        person = people.pop()
        place = self.rng.choice(["a bookshop", "the dog park", "a wedding", "the gym"])
        return _Event(
            "friend",
            f"I ran into {person} at {place} {self._when(day)}, we hadn't seen each other in years.",
            ("What a coincidence! Had they changed?", "Not one bit, it was like no time passed."),
            person,
            {
                "exact": [f"Where did {{name}} meet {person}?", f"When did {{name}} see {person}?"],
                "topic": ["Who did {name} run into?"],
                "paraphrase": ["Which old acquaintance did {name} bump into by chance?"],
            },
            ((f"Have you seen {person} again?", "We had coffee last week, actually."),),
        )


def conversations_generate(
    *, conversations: int = 10, seed: int = DEFAULT_SEED
) -> list[Conversation]:
    """The conversational set: the same for the same arguments on every run."""
    rng = random.Random(seed)
    asked: set[str] = set()
    return [
        _ChatBuilder(
            rng=random.Random(rng.randrange(2**32)), number=n, seed=seed, asked=asked
        ).build()
        for n in range(conversations)
    ]


def describe_conversations(conversations: list[Conversation]) -> str:
    sessions = [len(c.chats) for c in conversations]
    blocks = [len(c.blocks()) for c in conversations]
    questions = [q for c in conversations for q in c.questions]
    kinds = Counter(q.kind for q in questions)
    return (
        f"{len(conversations)} conversations, {sum(sessions)} sessions, {sum(blocks)} turns "
        f"({min(blocks)}-{max(blocks)} per conversation), {len(questions)} questions: "
        + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
    )


# A shopper's history or a conversation: both have a user id, blocks, questions and a session
# to ask from.
History = Shopper | Conversation


# --- the reference line: plain BM25 ----------------------------------------------------------


def bm25_rank(
    texts: dict[str, str], query: str, *, k: int, k1: float = 1.2, b: float = 0.75
) -> list[str]:
    """Okapi BM25 over lower-cased word tokens, no stemming or stop words; newest wins ties."""
    docs = {key: _TOKEN.findall(text.lower()) for key, text in texts.items()}
    average = sum(len(d) for d in docs.values()) / max(1, len(docs))
    frequency: Counter[str] = Counter()
    for tokens in docs.values():
        frequency.update(set(tokens))
    terms = _TOKEN.findall(query.lower())
    scored = []
    for position, (key, tokens) in enumerate(docs.items()):
        counts = Counter(tokens)
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens) / average))
        if score > 0:
            scored.append((-score, -position, key))
    return [key for _, _, key in sorted(scored)[:k]]


# --- storing and asking through the SDK -----------------------------------------------------


def created_at(day: date, position: int) -> str:
    """The visit's day; exchanges two minutes apart so they stay in order."""
    start = datetime(day.year, day.month, day.day, 10, 0, tzinfo=UTC)
    return (start + timedelta(minutes=2 * position)).isoformat()


def shopper_store(client: AgentMemoryClient, shopper: Shopper) -> dict[str, str]:
    """Store the history as the memory policy would; return block key -> block id."""
    user = client.create_user(shopper.user_id, name=shopper.name)
    ids: dict[str, str] = {}
    for visit in shopper.visits:
        session = user.create_session(
            visit.session_id,
            metadata={"retention": "default", "session_date": visit.day.isoformat()},
            memory_blocks_ttl=SESSION_TTL_SECONDS,
        )
        for position, exchange in enumerate(visit.exchanges):
            when = created_at(visit.day, position)
            added = session.add_memory(
                messages=[{"user_content": exchange.user, "assistant_content": exchange.assistant}],
                annotations={"type": "turn"},
                context_required=True,
                created_at=when,
            )
            ids[exchange.key] = added.block_ids[0]
            if exchange.facts:
                added = session.add_memory(
                    facts=list(exchange.facts),
                    annotations={"type": "fact"},
                    memory_block_ttl=0,
                    context_required=False,
                    created_at=when,
                )
                ids.update(zip(exchange.fact_keys, added.block_ids, strict=True))
        session.end()
    user.create_session(
        shopper.today_session_id,
        metadata={"retention": "default"},
        memory_blocks_ttl=SESSION_TTL_SECONDS,
    )
    return ids


def conversation_store(client: AgentMemoryClient, conversation: Conversation) -> dict[str, str]:
    """Store each turn as one block (the first speaker's as user content, the other's as
    assistant content, the speaker's name in front), one session per chat; return key -> id."""
    user = client.create_user(conversation.user_id, name=" & ".join(conversation.speakers))
    ids: dict[str, str] = {}
    for chat in conversation.chats:
        session = user.create_session(
            chat.session_id,
            metadata={"session_date": chat.day.isoformat()},
            memory_blocks_ttl=SESSION_TTL_SECONDS,
        )
        for position, turn in enumerate(chat.turns):
            side = (
                "user_content" if turn.speaker == conversation.speakers[0] else "assistant_content"
            )
            added = session.add_memory(
                messages=[{side: turn.block}],
                annotations={"type": "turn"},
                context_required=True,
                created_at=created_at(chat.day, position),
            )
            ids[turn.key] = added.block_ids[0]
        session.end()
    user.create_session(conversation.today_session_id, memory_blocks_ttl=SESSION_TTL_SECONDS)
    return ids


def history_store(client: AgentMemoryClient, history: History) -> dict[str, str]:
    if isinstance(history, Conversation):
        return conversation_store(client, history)
    return shopper_store(client, history)


def extraction_wait(
    client: AgentMemoryClient, shoppers: list[History], timeout: float = 600.0
) -> None:
    """Wait until every block has its summary and contexts, so every run ranks the same text."""
    deadline = time.monotonic() + timeout
    for shopper in shoppers:
        session = client.get_user(shopper.user_id).get_session(shopper.today_session_id)
        while True:
            blocks = session.search_memory(filters={"session_ids": "all"}).memory_blocks
            if all(b.status != MemoryBlockStatus.PROCESSING for b in blocks):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"extraction still running for {shopper.user_id}")
            time.sleep(0.2)


@dataclass
class Answered:
    question: Question
    ranked: list[str]  # block keys, best first
    ms: float | None = None


def shoppers_ask(
    client: AgentMemoryClient, shoppers: list[History], ids: dict[str, str]
) -> list[Answered]:
    keys = {block_id: key for key, block_id in ids.items()}
    answered = []
    for shopper in shoppers:
        session = client.get_user(shopper.user_id).get_session(shopper.today_session_id)
        # The first search of a user loads their index: not a figure of this benchmark.
        session.search_memory(query=f"warm-up for {shopper.user_id}")
        for question in shopper.questions:
            started = time.perf_counter()
            found = session.search_memory(
                query=question.text, filters={"session_ids": "all", "relevant_k": RELEVANT_K}
            )
            ms = (time.perf_counter() - started) * 1000
            ranked = [keys.get(b.block_id, f"foreign:{b.block_id}") for b in found.memory_blocks]
            answered.append(Answered(question, ranked, ms))
    return answered


def shoppers_ask_bm25(shoppers: list[History]) -> list[Answered]:
    answered = []
    for shopper in shoppers:
        texts = shopper.blocks()
        for question in shopper.questions:
            answered.append(Answered(question, bm25_rank(texts, question.text, k=RELEVANT_K)))
    return answered


# --- ranking in process ----------------------------------------------------------------------


def ask_in_process(
    histories: list[History], embedder_name: str, modes: list[str]
) -> dict[str, list[Answered]]:
    """Rank every question in process over the same blocks the server would hold.

    The server's own embedder, extractive extractor, terms, index and fusion code, without
    HTTP or SQLite: the recall figures are the server's (tests/test_benchmark_memory_recall.py
    checks that against a live server), in seconds instead of minutes, so a change to the
    ranking can be tried on the whole set. Each history's blocks are embedded once and
    every mode ranks the same index.
    """
    from memoryserver.embedders import build_embedder
    from memoryserver.extractors import ExtractiveExtractor
    from memoryserver.index.lexical import search_text
    from memoryserver.index.slot import IndexRow, Query, UserIndex
    from memoryserver.terms import query_terms

    embedder = build_embedder(embedder_name)
    extractor = ExtractiveExtractor()
    answered: dict[str, list[Answered]] = {mode: [] for mode in modes}
    stored = datetime(2026, 1, 1, tzinfo=UTC)
    for history in histories:
        texts = history.blocks()
        keys = list(texts)
        vectors = embedder.embed([texts[key] for key in keys])
        index = UserIndex(dimensions=vectors.shape[1])
        for pk, key in enumerate(keys):
            text = texts[key]
            if "/fact" not in key:  # turns are stored with context_required, facts without
                extraction = extractor.extract(text)
                text = search_text(text, extraction.summary, extraction.contexts)
            row = IndexRow(
                pk, key, "s", vectors[pk], stored, None, None, "ready", None, None, None, text
            )
            index.upsert(row)
        questions = list(history.questions)
        query_vectors = embedder.embed([q.text for q in questions])
        for question, vector in zip(questions, query_vectors, strict=True):
            terms = query_terms(question.text)
            for mode in modes:
                query = Query(
                    now=0.0,
                    vector=vector if mode != "lexical" else None,
                    terms=terms if mode != "dense" else None,
                    relevant_k=RELEVANT_K,
                )
                ranked = [hit.block_id for hit in index.search(query)]
                answered[mode].append(Answered(question, ranked))
    return answered


# --- figures ---------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass(frozen=True)
class Figures:
    questions: int
    recall5: float
    recall10: float
    hit5: float
    hit10: float
    p50: float | None
    p95: float | None


def figures_of(answered: list[Answered]) -> Figures:
    def recall(a: Answered, k: int) -> float:
        answers = set(a.question.answers)
        return len(answers & set(a.ranked[:k])) / len(answers)

    def hit(a: Answered, k: int) -> float:
        return 1.0 if set(a.question.answers) & set(a.ranked[:k]) else 0.0

    n = max(1, len(answered))
    times = [a.ms for a in answered if a.ms is not None]
    return Figures(
        questions=len(answered),
        recall5=sum(recall(a, 5) for a in answered) / n,
        recall10=sum(recall(a, 10) for a in answered) / n,
        hit5=sum(hit(a, 5) for a in answered) / n,
        hit10=sum(hit(a, 10) for a in answered) / n,
        p50=pct(times, 50) if times else None,
        p95=pct(times, 95) if times else None,
    )


def table(rows: list[tuple[str, str, list[Answered]]]) -> str:
    """The main table, then recall@10 by kind of question."""
    head = (
        "| ranking | embedder | recall@5 | recall@10 | hit@5 | hit@10 | search p50 | search p95 |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for mode, embedder, answered in rows:
        f = figures_of(answered)
        timing = f"{f.p50:.1f} ms | {f.p95:.1f} ms" if f.p50 is not None else "— | —"
        lines.append(
            f"| {mode} | {embedder} | {f.recall5:.3f} | {f.recall10:.3f} | {f.hit5:.3f} | "
            f"{f.hit10:.3f} | {timing} |"
        )
    lines += ["", "recall@5 / recall@10 by kind of question:", ""]
    lines.append("| ranking | embedder | " + " | ".join(KINDS) + " |")
    lines.append("|---|---|" + "---|" * len(KINDS))
    for mode, embedder, answered in rows:
        cells = []
        for kind in KINDS:
            f = figures_of([a for a in answered if a.question.kind == kind])
            cells.append(f"{f.recall5:.3f} / {f.recall10:.3f}")
        lines.append(f"| {mode} | {embedder} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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


# --- running it ------------------------------------------------------------------------------


Rows = list[tuple[str, str, list[Answered]]]


def run_embedder(
    embedder: str, modes: list[str], sets: dict[str, list[History]], log: Callable[[str], None]
) -> dict[str, Rows]:
    """Store every set in one server, then ask each set's questions once per search mode."""
    from tests.support.agentmemory_server import start_agentmemory_server

    env = {"AGENT_MEMORY_EMBEDDER": embedder, "AGENT_MEMORY_EXTRACTOR": "extractive"}
    histories = [h for chosen in sets.values() for h in chosen]
    rows: dict[str, Rows] = {name: [] for name in sets}
    with tempfile.TemporaryDirectory(prefix=f"recall-{embedder}-") as tmp:
        base_url, stop = start_agentmemory_server(tmp, **env)
        started = time.monotonic()
        try:
            with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
                ids: dict[str, str] = {}
                for history in histories:
                    ids.update(history_store(client, history))
                extraction_wait(client, histories)
        finally:
            stop()
        log(f"{embedder}: stored {len(ids)} blocks in {time.monotonic() - started:.0f} s")
        # One server per mode on the same data: a fresh process, so no query vector is cached.
        for mode in modes:
            base_url, stop = start_agentmemory_server(tmp, AGENT_MEMORY_SEARCH_MODE=mode, **env)
            try:
                with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
                    for name, chosen in sets.items():
                        answered = shoppers_ask(client, chosen, ids)
                        rows[name].append((mode, embedder, answered))
                        figures = figures_of(answered)
                        log(
                            f"{embedder} {mode} {name}: recall@5 {figures.recall5:.3f} "
                            f"recall@10 {figures.recall10:.3f}"
                        )
            finally:
                stop()
    return rows


def run_in_process(
    embedder: str, modes: list[str], sets: dict[str, list[History]], log: Callable[[str], None]
) -> dict[str, Rows]:
    rows: dict[str, Rows] = {}
    for name, chosen in sets.items():
        started = time.monotonic()
        answered = ask_in_process(chosen, embedder, modes)
        log(f"{embedder} {name}: ranked in process in {time.monotonic() - started:.0f} s")
        rows[name] = [(mode, embedder, answered[mode]) for mode in modes]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shoppers", type=int, default=40)
    parser.add_argument(
        "--conversations", type=int, default=10, help="the conversational set; 0 leaves it out"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--embedders", default="hashing,minilm")
    parser.add_argument("--modes", default="dense,lexical,hybrid")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="rank with the server's code in this process: the same recall, no timings, seconds",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 6 shoppers, hashing embedder only"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.shoppers, args.conversations, args.embedders = 6, 2, "hashing"
    sets: dict[str, list[History]] = {
        "shoppers": dataset_generate(shoppers=args.shoppers, seed=args.seed)
    }
    if args.conversations:
        sets["conversations"] = conversations_generate(
            conversations=args.conversations, seed=args.seed
        )

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    where = "in process" if args.in_process else "SDK over HTTP on 127.0.0.1"
    print(f"Memory recall benchmark, seed {args.seed}: {describe(sets['shoppers'])}")
    if "conversations" in sets:
        print(f"Conversations: {describe_conversations(sets['conversations'])}")  # type: ignore[arg-type]
    print(f"Search: top {RELEVANT_K} over all of a user's sessions, {where}")
    rows = {
        name: [("bm25 (reference, in-process)", "—", shoppers_ask_bm25(chosen))]
        for name, chosen in sets.items()
    }
    run = run_in_process if args.in_process else run_embedder
    for embedder in args.embedders.split(","):
        for name, found in run(embedder, args.modes.split(","), sets, log).items():
            rows[name] += found
    for name in sets:
        print()
        print(f"{name}:")
        print()
        print(table(rows[name]))


if __name__ == "__main__":
    main()
