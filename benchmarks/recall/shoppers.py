"""The shoppers' set: shopper histories from the shop's catalog fixture, and their questions."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from benchmarks.recall.shopper_tables import (
    CATEGORY_WORDS,
    CITIES,
    DESIGNS,
    FILLERS,
    LEAD_INS,
    OCCASIONS,
    RECIPIENT_NAMES,
    RELATIONS,
    REQUESTS,
    SHOPPER_NAMES,
    say_date,
)
from benchmarks.recall.shopper_units import Statements, Unit, product_colours, product_price
from benchmarks.recall.words import DEFAULT_SEED, KINDS, ROOT, Question, question_kind

CATALOG_PATH = ROOT / "shop" / "fixtures" / "catalog.json"
# A shopper may like two brands or colours: "which brands do I like?" is answered by both.
POOLED_TOPICS = ("brand", "colour/liked")

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


class _Builder(Statements):
    """Generates one shopper's history and questions from a seeded random source."""

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
        placed: list[list[tuple[Unit, int]]] = [[] for _ in range(visit_count)]
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

    def _units(self, days: list[date]) -> tuple[list[Unit], list[Unit], list[date]]:
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
        colours = rng.sample(sorted({c for p in self.catalog for c in product_colours(p)}), 4)
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
            Unit("design", [(u, "Good to know, I'll keep that in mind.")], f, "", {})
            for u, f in rng.sample(DESIGNS, rng.randint(0, 2))
        ]
        return units, designs, occasion_days

    def _visit(
        self,
        user_id: str,
        number: int,
        day: date,
        says: list[tuple[Unit, int]],
        taken: set[tuple[int, int]],
    ) -> Visit:
        """One visit: its statements among small talk and other products, in random order."""
        rng = self.rng
        fillers = [
            self._filler(kind, day, taken)
            for kind in rng.sample(range(self.FILLER_KINDS), rng.randint(2, 7))
        ]
        middle: list[tuple[Unit | None, tuple[str, str]]] = [
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
        self, unit: Unit, key: str, visits: list[Visit], units: list[Unit]
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
                f"The **{name}** comes in {', '.join(product_colours(product))}.",
            )
        if kind == 9:
            brands = sorted({p["brand"] for p in self.catalog})
            return "Which brands do you carry?", f"We carry {', '.join(brands)}."
        if kind == 10:
            return f"Is the {name} on sale?", f"Not right now — it's {product_price(product)}."
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
