"""Score how well the offline model understands shopper requests: its first catalog search
against the labelled sets in tests/data/.

Each line is a request as a shopper wrote it, the product page they were on (a style SKU)
and their remembered facts ("slot=value", the slots of `llm.fact_schema`), with the filter
arguments a good assistant sends in its first `search_products` call. A request is fully
understood when every scored argument it names is sent with that value and none other is.
The model is sent what the turn pipeline sends: the system prompt, the page's product as
`get_product` returns it, the facts as recalled notes lines, and the tool schemas.

The tuning set's misses are printed one by one; the frozen set, written before the rules it
scores and never tuned on, prints only its figure (`--show-frozen-misses` lists them, which
makes it a tuning set from then on).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.turn.conversation_checks import SCORED, scored_filters
from assistant.turn.prompting import turn_messages
from assistant.turn.tools import tool_schemas
from llm.fact_schema import (
    budget_sentence,
    occasion_sentence,
    preference_sentence,
    size_sentence,
    slot_key,
)
from llm.offline.roles import reply_for
from llm.transcript import page_context_message
from memoryapp.public import notes_message
from shop.selectors import catalog_vocabulary, product_get

DATA = Path(settings.BASE_DIR) / "tests" / "data"
TUNING = DATA / "shopping_requests.jsonl"
FROZEN = DATA / "shopping_requests_frozen.jsonl"
FACT_DATE = "2026-05-01"


class RequestInvalid(ValueError):
    pass


@dataclass(frozen=True)
class Scored:
    text: str
    expected: dict[str, Any]
    sent: dict[str, Any] | None  # the first search's scored arguments; None: no search
    call: str  # what the model did first: "search_products", "get_product", "text"

    @property
    def understood(self) -> bool:
        return self.sent is not None and self.sent == self.expected


def requests_load(path: Path) -> list[dict[str, Any]]:
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError as exc:
            raise RequestInvalid(f"{path.name}:{number}: not JSON ({exc})") from None
        if not isinstance(line.get("text"), str) or not isinstance(line.get("expect"), dict):
            raise RequestInvalid(f"{path.name}:{number}: needs text and expect")
        unknown = set(line["expect"]) - set(SCORED)
        if unknown:
            raise RequestInvalid(f"{path.name}:{number}: unscored keys {sorted(unknown)}")
        lines.append(line)
    return lines


def fact_sentence(fact: str, *, brands: list[str]) -> str:
    """ "brand/vela=like" -> "The shopper prefers the brand Vela.", as the judge writes it."""
    slot, _, value = fact.partition("=")
    category, _, key = slot.partition("/")
    if category == "size":
        return size_sentence(slot, value)
    if category == "budget":
        said = value.split()
        amount = value if value == "tight" or said[-1].isalpha() else f"{value} EUR"
        return budget_sentence(amount)
    if category == "brand":
        name = next((brand for brand in brands if slot_key(brand) == key), key)
        return preference_sentence("brand", value, name)
    if category == "occasion":
        return occasion_sentence(key.replace("-", " "))
    if category in ("colour", "material", "design", "values"):
        return preference_sentence(category, value, key.replace("-", " "))
    raise RequestInvalid(f"unknown fact slot {slot!r}")


def request_messages(line: dict[str, Any], *, vocabulary: dict[str, list[str]]) -> list[dict]:
    page = None
    if line.get("page"):
        detail = product_get(sku=line["page"])
        if detail is None:
            raise RequestInvalid(f"no active product {line['page']} for {line['text']!r}")
        page = page_context_message({"kind": "product", "product": detail.as_dict()})
    facts = [
        f"[fact · stated {FACT_DATE}] {fact_sentence(fact, brands=vocabulary['brands'])}"
        for fact in line.get("facts") or []
    ]
    return turn_messages(
        signed_in=True,
        notes=notes_message(facts) if facts else None,
        text=line["text"],
        page_context=page,
        mode="remembering",
    )


def request_score(line: dict[str, Any], *, vocabulary: dict[str, list[str]]) -> Scored:
    reply = reply_for(
        {
            "messages": request_messages(line, vocabulary=vocabulary),
            "tools": tool_schemas(vocabulary=vocabulary, with_memory=True),
        }
    )
    expected = scored_filters(line["expect"])
    if not reply.tool_calls:
        return Scored(line["text"], expected, None, "text")
    call = reply.tool_calls[0]
    if call.name != "search_products":
        return Scored(line["text"], expected, None, call.name)
    return Scored(line["text"], expected, scored_filters(call.arguments), call.name)


class Command(BaseCommand):
    help = "Score the offline model's first catalog search on the labelled shopper requests."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tuning", type=Path, default=TUNING, help="The tuning set.")
        parser.add_argument("--frozen", type=Path, default=FROZEN, help="The frozen set.")
        parser.add_argument(
            "--show-frozen-misses",
            action="store_true",
            help="Also list the frozen set's misses (it is then no longer held out).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        vocabulary = catalog_vocabulary()
        if not vocabulary["brands"]:
            raise CommandError("The catalog is empty: run `manage.py seed_catalog` first.")
        sets = [
            ("tuning", options["tuning"], True),
            ("frozen", options["frozen"], options["show_frozen_misses"]),
        ]
        for name, path, show in sets:
            if not path.exists():
                self.stdout.write(f"{name}: {path.name} not found")
                continue
            try:
                results = [
                    request_score(line, vocabulary=vocabulary) for line in requests_load(path)
                ]
            except RequestInvalid as exc:
                raise CommandError(str(exc)) from None
            understood = sum(result.understood for result in results)
            share = understood / len(results) if results else 0.0
            self.stdout.write(
                f"{name}: {understood}/{len(results)} fully understood ({share:.1%}) [{path.name}]"
            )
            if show:
                for result in results:
                    if not result.understood:
                        sent = result.sent if result.sent is not None else f"({result.call})"
                        self.stdout.write(
                            f"  MISS {result.text!r}\n    expected {result.expected}\n    sent     {sent}"
                        )
