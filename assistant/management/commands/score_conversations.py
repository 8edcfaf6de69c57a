"""Score how well the offline model follows conversations: labelled multi-turn chats replayed
through it with the real catalog tools, each turn's expectations checked.

A line of tests/data/conversations*.jsonl is one shopper's conversation over one or more
visits: whether they are signed in, what memory holds at the start ("slot=value", as in
`score_requests`), and the turns, each with its visit, the product page it is typed on, the
act it is (`ACTS`) and what a good answer does (`conversation_checks.EXPECTATIONS`). Each
turn is sent as the turn pipeline sends it: the system prompt, the page, the notes (the
facts, then this visit's exchanges word for word, each answer with its products-shown line)
and the message; the model's tool calls run against the seeded catalog and the answer's
cards are chosen as the agent loop chooses them. After each turn the offline fact judge
reads the message, as after `done`: signed in, what it keeps is remembered from the next
turn on and into later visits (newest word on a slot wins); signed out, only for the chat.

A turn is understood when every expectation it names holds; a `fact` expectation is scored
apart (it scores the judge, not the assistant). The tuning file's misses are printed with
why; the frozen file, written by someone who never read the model and never tuned on,
prints only its totals by act.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.management.commands.score_requests import fact_sentence
from assistant.turn.agent import FinalEvent, ToolEvent, agent_run
from assistant.turn.conversation_checks import EXPECTATIONS, Shown, TurnResult, turn_check
from assistant.turn.prompting import turn_messages
from assistant.turn.tools import tool_run, tool_schemas
from llm.factory import OFFLINE_MODEL, offline_client
from llm.note_lines import FACT, STATED, THIS_CHAT, THIS_VISIT, note_label
from llm.offline.judge import facts_judge
from llm.transcript import exchange_with_products, page_context_message
from memoryapp.public import notes_message
from shop.selectors import catalog_vocabulary, product_get

DATA = Path(settings.BASE_DIR) / "tests" / "data"
TUNING = DATA / "conversations.jsonl"
FROZEN = DATA / "conversations_frozen.jsonl"
SECOND = DATA / "conversations_dev.jsonl"
THIRD = DATA / "conversations_probe.jsonl"
ACTS = (
    "request",
    "refinement",
    "reference",
    "comparison",
    "availability",
    "more",
    "memory_question",
    "statement",
    "lift",
    "catalog_question",
    "smalltalk",
    "out_of_scope",
)
START_DATE = "2026-05-01"  # the date of the facts memory holds at the start


def visit_date(visit: int) -> str:
    return f"2026-06-{min(visit, 28):02d}"


class ConversationInvalid(ValueError):
    pass


def conversations_load(path: Path) -> list[dict[str, Any]]:
    conversations = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            line = json.loads(raw)
        except ValueError as exc:
            raise ConversationInvalid(f"{where}: not JSON ({exc})") from None
        turns = line.get("turns")
        if not isinstance(turns, list) or not turns:
            raise ConversationInvalid(f"{where}: needs turns")
        for index, turn in enumerate(turns, start=1):
            if not isinstance(turn.get("text"), str) or turn.get("act") not in ACTS:
                raise ConversationInvalid(f"{where} turn {index}: needs text and a known act")
            unknown = set(turn.get("expect") or {}) - set(EXPECTATIONS)
            if unknown:
                raise ConversationInvalid(f"{where} turn {index}: unknown keys {sorted(unknown)}")
        conversations.append(line)
    return conversations


@dataclass
class Memory:
    """What the shopper's memory (signed in) or this chat (signed out) holds between turns."""

    signed_in: bool
    facts: dict[str, tuple[str, str]] = field(default_factory=dict)  # slot -> (date, sentence)
    exchanges: list[str] = field(default_factory=list)  # this visit's, word for word

    def notes(self) -> str | None:
        """The notes message: facts (stored, or said in this chat), then this visit."""
        lines = [
            note_label(FACT, f"{STATED} {day}" if self.signed_in else THIS_CHAT) + sentence
            for day, sentence in self.facts.values()
        ]
        lines += [f"{note_label(THIS_VISIT)}{exchange}" for exchange in self.exchanges]
        return notes_message(lines)

    def remember(self, text: str, *, day: str) -> list[tuple[str, str]]:
        """What the offline judge keeps of a message; a restated slot moves to the end."""
        judged = facts_judge(text)
        for fact in judged:
            self.facts.pop(fact.slot, None)
            self.facts[fact.slot] = (day, fact.fact)
        return [(fact.slot, fact.value) for fact in judged]


@dataclass
class Replayed:
    text: str
    searches: list[dict[str, Any]]
    looked_up: list[str]  # SKUs of this turn's get_product calls
    cards: list[dict[str, Any]]


async def _turn_replay(messages: list[dict], tools: list[dict], vocabulary: dict) -> Replayed:
    client = offline_client(stream_delay_ms=0.0)

    async def run(name: str, raw: str):
        return await tool_run(name=name, raw_arguments=raw, vocabulary=vocabulary, recall=None)

    searches: list[dict[str, Any]] = []
    looked_up: list[str] = []
    async for event in agent_run(
        client=client, model=OFFLINE_MODEL, messages=messages, tools=tools, run_tool=run
    ):
        if isinstance(event, ToolEvent):
            arguments = _json(event.arguments)
            if event.name == "search_products":
                searches.append(arguments)
            elif event.name == "get_product" and arguments.get("sku"):
                looked_up.append(str(arguments["sku"]))
        elif isinstance(event, FinalEvent):
            await client.close()
            return Replayed(event.text, searches, looked_up, list(event.products))
    await client.close()
    raise CommandError("the agent loop ended without an answer")


def _json(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def conversation_score(
    conversation: dict[str, Any], *, vocabulary: dict[str, list[str]]
) -> list[TurnResult]:
    """Replay one conversation turn by turn; every turn's result, in order."""
    signed_in = bool(conversation.get("signed_in", True))
    memory = Memory(signed_in=signed_in)
    for fact in conversation.get("facts") or []:
        slot = fact.partition("=")[0]
        memory.facts[slot] = (START_DATE, fact_sentence(fact, brands=vocabulary["brands"]))
    tools = tool_schemas(vocabulary=vocabulary, with_memory=signed_in)
    results: list[TurnResult] = []
    visit = None
    shown = Shown()
    for turn in conversation["turns"]:
        if turn.get("visit", 1) != visit:
            visit = turn.get("visit", 1)
            memory.exchanges = []
            shown = Shown()
            if not signed_in:
                memory.facts = {}  # a new chat: nothing said before is known
        page = None
        if turn.get("page"):
            detail = product_get(sku=turn["page"])
            if detail is None:
                raise ConversationInvalid(f"{conversation.get('id')}: no product {turn['page']}")
            page = page_context_message({"kind": "product", "product": detail.as_dict()})
        messages = turn_messages(
            signed_in=signed_in, notes=memory.notes(), text=turn["text"], page_context=page
        )
        replayed = asyncio.run(_turn_replay(messages, tools, vocabulary))
        answer = exchange_with_products(replayed.text, replayed.cards)
        # One note line, as the memory code writes it: its newlines become " / ".
        flat = " / ".join(part for part in answer.splitlines() if part.strip())
        memory.exchanges.append(f"Shopper: {turn['text']} ‖ Assistant: {flat}")
        judged = memory.remember(turn["text"], day=visit_date(visit))
        result = turn_check(turn, replayed, shown=shown, judged=judged, visit=visit)
        results.append(result)
        shown = shown.after(replayed.cards)
    _lifts_check(results)
    return results


def _lifts_check(results: list[TurnResult]) -> None:
    """A lifted filter is a miss of the lift's turn when a later turn of its visit sends it."""
    for index, result in enumerate(results):
        for lifted in result.turn.get("expect", {}).get("lifts") or []:
            for later in results[index + 1 :]:
                if later.visit != result.visit:
                    break
                sent = later.first_search
                wanted = (later.turn.get("expect") or {}).get("search") or {}
                if sent is not None and _still_sent(lifted, sent, wanted):
                    result.misses.append(f"{lifted} sent again on {later.turn['text']!r}")
                    break


def _still_sent(lifted: str, sent: dict[str, Any], wanted: dict[str, Any]) -> bool:
    if lifted == "brand":
        return bool(sent.get("brand")) and not wanted.get("brand")
    if lifted == "budget":
        return sent.get("max_price") is not None and wanted.get("max_price") is None
    if lifted == "exclude_colours":  # every colour set aside is back
        return bool(
            set(sent.get("exclude_colours") or []) - set(wanted.get("exclude_colours") or [])
        )
    if lifted.startswith("colour/"):
        colour = lifted.partition("/")[2]
        return colour in (sent.get("exclude_colours") or []) and colour not in (
            wanted.get("exclude_colours") or []
        )
    return False


class Command(BaseCommand):
    help = "Replay the labelled conversations through the offline model; score each act."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tuning", type=Path, default=TUNING, help="The tuning file.")
        parser.add_argument(
            "--second", type=Path, default=SECOND, help="The second tuning file (read)."
        )
        parser.add_argument(
            "--third", type=Path, default=THIRD, help="The third tuning file (read)."
        )
        parser.add_argument("--frozen", type=Path, default=FROZEN, help="The frozen file.")

    def handle(self, *args: Any, **options: Any) -> None:
        vocabulary = catalog_vocabulary()
        if not vocabulary["brands"]:
            raise CommandError("The catalog is empty: run `manage.py seed_catalog` first.")
        for name, path, show in (
            ("tuning", options["tuning"], True),
            ("second tuning", options["second"], True),
            ("third tuning", options["third"], True),
            ("frozen", options["frozen"], False),
        ):
            if not path.exists():
                self.stdout.write(f"{name}: {path.name} not found")
                continue
            try:
                conversations = conversations_load(path)
                results = [
                    (conversation.get("id", "?"), result)
                    for conversation in conversations
                    for result in conversation_score(conversation, vocabulary=vocabulary)
                ]
            except ConversationInvalid as exc:
                raise CommandError(str(exc)) from None
            self._report(name, path, len(conversations), results, show=show)

    def _report(self, name: str, path: Path, count: int, results: list, *, show: bool) -> None:
        understood = sum(result.understood for _, result in results)
        share = understood / len(results) if results else 0.0
        self.stdout.write(
            f"{name}: {understood}/{len(results)} turns understood ({share:.1%}) "
            f"in {count} conversations [{path.name}]"
        )
        totals, hits = Counter(), Counter()
        for _, result in results:
            totals[result.act] += 1
            hits[result.act] += result.understood
        for act in ACTS:
            if totals[act]:
                self.stdout.write(
                    f"  {act}: {hits[act]}/{totals[act]} ({hits[act] / totals[act]:.1%})"
                )
        facts = [result.fact_kept for _, result in results if result.fact_kept is not None]
        if facts:
            self.stdout.write(f"  facts kept by the judge: {sum(facts)}/{len(facts)}")
        if not show:
            return
        for conversation_id, result in results:
            if not result.understood:
                self.stdout.write(
                    f"  MISS {conversation_id} {result.act} {result.turn['text']!r}: "
                    + "; ".join(result.misses)
                )
