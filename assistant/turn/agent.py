"""The agent loop: stream a model's answer, run the tools it calls, at most N rounds.

Streamed tool-call arguments arrive in pieces keyed by `index`; they are accumulated and
parsed once, when the round ends. The answer's links are checked as it streams: only the
product pages that tool results of this turn returned may stay links (seed 000, rule 4:
a product remembered from an earlier visit, or any other address, is never linked).
Each sentence passes the grounding check (`assistant.turn.grounding`) before that: the check
reads a link's label as a product name before its link is stripped, and the shopper reads
the answer a sentence at a time, each one held to this turn's catalog data.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import openai

from assistant.turn.grounding import AnswerGrounder, GroundingReport
from assistant.turn.grounding.evidence import Evidence, evidence_start
from assistant.turn.tools import ToolOutcome, tool_result_text
from llm.cards import MAX_CARDS
from llm.prompts import NOTES_OPEN, content_text
from llm.transcript import page_context_parse

MAX_ROUNDS = 4


@dataclass
class TokenEvent:
    text: str


@dataclass
class ToolEvent:
    name: str
    arguments: str
    outcome: ToolOutcome
    duration_ms: float


@dataclass
class RoundEvent:
    index: int
    start_ms: float
    duration_ms: float
    # A span other than the model's round: the grounding check's.
    name: str = ""


@dataclass
class FinalEvent:
    text: str
    products: list[dict[str, Any]] = field(default_factory=list)
    # The search behind the cards found more products than the cards show.
    more: bool = False
    grounding: GroundingReport = field(default_factory=GroundingReport)


AgentEvent = TokenEvent | ToolEvent | RoundEvent | FinalEvent
ToolRunner = Callable[[str, str], Awaitable[ToolOutcome]]


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


# A markdown link, an autolink, and how either may begin while it is still streaming.
_LINK = re.compile(r'\[(?P<label>[^\[\]\n]*)\]\((?P<url>[^()\s]*)(?:\s+"[^"\n]*")?\)')
_AUTOLINK = re.compile(r"<(?P<url>[a-z][a-z0-9+.\-]*:[^<>\s]*)>", re.I)
_LINK_START = re.compile(r'\[[^\[\]\n]*(?:\](?:\([^()\s]*(?:\s+"[^"\n]*)?)?)?$')
_AUTOLINK_START = re.compile(r"<[a-z0-9+.\-:]*[^<>\s]*$", re.I)
# Past this, held-back text is not a link in the making: release it.
_LINK_MAX_CHARS = 600


class LinkGuard:
    """Turn each link whose target is not an allowed url into its words, as text streams.

    Text that may still become a link is held back until it is known either way, so the
    shopper never sees, even for a moment, a link the finished answer would not have.
    """

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self._held = ""

    def feed(self, text: str) -> str:
        self._held += text
        return self._release(final=False)

    def flush(self) -> str:
        return self._release(final=True)

    def _release(self, *, final: bool) -> str:
        out: list[str] = []
        text = self._held
        position = 0
        while True:
            starts = [i for i in (text.find("[", position), text.find("<", position)) if i >= 0]
            if not starts:
                out.append(text[position:])
                position = len(text)
                break
            start = min(starts)
            out.append(text[position:start])
            whole = (_LINK if text[start] == "[" else _AUTOLINK).match(text, start)
            if whole:
                out.append(self._keep_or_unlink(whole))
                position = whole.end()
                continue
            partial = (_LINK_START if text[start] == "[" else _AUTOLINK_START).match(text, start)
            if partial and not final and len(text) - start <= _LINK_MAX_CHARS:
                position = start
                break
            out.append(text[start])
            position = start + 1
        self._held = text[position:]
        return "".join(out)

    def _keep_or_unlink(self, match: re.Match) -> str:
        url = match.group("url")
        if url in self.allowed:
            return match.group(0)
        return match.groupdict().get("label") or url


def _named_cards(text: str, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cards whose product the text names (or links), in the order the text does."""
    latest: dict[str, dict[str, Any]] = {}
    for card in seen:
        # The newest look-up wins: a product checked in one colour shows that colour.
        latest.pop(card["sku"], None)
        latest[card["sku"]] = card
    lowered = text.lower()
    placed = []
    for card in latest.values():
        spots = [lowered.find(card["name"].lower())]
        if card.get("url"):
            spots.append(text.find(f"]({card['url']}"))
        spots = [spot for spot in spots if spot >= 0]
        if spots:
            placed.append((min(spots), card))
    return [card for _, card in sorted(placed, key=lambda pair: pair[0])]


_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?P<item>.+)$", re.M)


def _answer_cards(
    text: str, seen: list[dict[str, Any]], newest: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Cards for exactly the products the answer lists, in its order, at most MAX_CARDS.

    An answer that lists products (one per list line) is about those, not about a product
    it names in passing ("cheaper than the Trench Coat"). One that lists none is about the
    products it names; one that names none but follows a look-up that found some is about
    those (a model may say "here are a few options" and leave the names to the cards).
    """
    if not text.strip():
        return []
    items = "\n".join(match["item"] for match in _LIST_LINE.finditer(text))
    listed = _named_cards(items, seen) if items else []
    named = listed or _named_cards(text, seen)
    return (named or newest)[:MAX_CARDS]


@dataclass
class _Search:
    skus: list[str]
    total: int
    offset: int


def _more_found(cards: list[dict[str, Any]], searches: list[_Search]) -> bool:
    """Whether the newest search behind the cards matched more than the cards show."""
    shown = {card["sku"] for card in cards}
    for search in reversed(searches):
        from_it = shown.intersection(search.skus)
        if from_it:
            return search.total > search.offset + len(from_it)
    return False


def _search_of(outcome: ToolOutcome) -> _Search | None:
    content = outcome.content
    total, offset = content.get("total"), content.get("offset", 0)
    if not isinstance(total, int) or not isinstance(offset, int):
        return None
    return _Search([card["sku"] for card in outcome.products], total, offset)


async def agent_run(
    *,
    client: openai.AsyncOpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    run_tool: ToolRunner,
    max_rounds: int = MAX_ROUNDS,
    linkable: list[dict[str, Any]] | None = None,
) -> AsyncIterator[AgentEvent]:
    """Yield tokens, tool results and round timings, then one FinalEvent.

    `linkable` are cards the caller looked up in the catalog this turn (the product page
    the shopper is on): like tool results, they may be linked and shown. The grounding check
    holds the answer to the catalog's colours and sizes (the search tool's), the page's
    product (its look-up in the page-context message, variants included), the figures of the
    shopper's message (a figure they gave may be said back) and each tool result of the turn.
    Raises the openai SDK's errors (APIError, APITimeoutError, ...) to the caller; a
    cancelled turn closes the model's stream and lets the cancellation through.
    """
    conversation = list(messages)
    cards: list[dict[str, Any]] = list(linkable or [])
    newest: list[dict[str, Any]] = []
    searches: list[_Search] = []
    evidence = _evidence_start(messages, tools)
    for card in cards:
        evidence.add_product(card)
    report = GroundingReport()
    started = time.perf_counter()
    for round_index in range(max_rounds):
        last_round = round_index == max_rounds - 1
        round_start = time.perf_counter()
        stream = await client.chat.completions.create(
            model=model,
            messages=conversation,
            tools=tools,
            # On the last round the model must answer with what it has.
            tool_choice="none" if last_round else "auto",
            stream=True,
        )
        text_parts: list[str] = []
        calls: dict[int, _PendingCall] = {}
        guard = LinkGuard({card["url"] for card in cards if card.get("url")})
        grounder = AnswerGrounder(evidence, report)
        try:
            async for chunk in stream:
                if not chunk.choices:
                    continue
                delta = chunk.choices[0].delta
                if delta.content:
                    shown = guard.feed(grounder.feed(delta.content))
                    if shown:
                        text_parts.append(shown)
                        yield TokenEvent(shown)
                for call_delta in delta.tool_calls or []:
                    pending = calls.setdefault(call_delta.index, _PendingCall())
                    if call_delta.id:
                        pending.id = call_delta.id
                    if call_delta.function is not None:
                        if call_delta.function.name:
                            pending.name += call_delta.function.name
                        if call_delta.function.arguments:
                            pending.arguments += call_delta.function.arguments
        finally:
            # Stopped mid-answer, or ended early by an error: hang up on the model.
            await stream.close()
        rest = guard.feed(grounder.flush()) + guard.flush()
        if rest:
            text_parts.append(rest)
            yield TokenEvent(rest)
        yield RoundEvent(
            index=round_index,
            start_ms=round((round_start - started) * 1000, 2),
            duration_ms=round((time.perf_counter() - round_start) * 1000, 2),
        )
        text = "".join(text_parts)
        if not calls or last_round:
            products = _answer_cards(text, cards, newest)
            # The check's verdict counts, as a span of the timeline (and so the chat record).
            yield RoundEvent(
                index=round_index,
                start_ms=round((time.perf_counter() - started) * 1000, 2),
                duration_ms=round(report.check_ms, 2),
                name=report.span_name(),
            )
            yield FinalEvent(
                text=text,
                products=products,
                more=_more_found(products, searches),
                grounding=report,
            )
            return
        ordered = [calls[i] for i in sorted(calls)]
        conversation.append(
            {
                "role": "assistant",
                "content": text or None,
                "tool_calls": [
                    {
                        "id": call.id or f"call_{round_index}_{i}",
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments or "{}"},
                    }
                    for i, call in enumerate(ordered)
                ],
            }
        )
        for i, call in enumerate(ordered):
            tool_start = time.perf_counter()
            outcome = await run_tool(call.name, call.arguments)
            evidence.add_result(outcome.content, _arguments(call.arguments))
            cards.extend(outcome.products)
            if outcome.products:
                newest = list(outcome.products)
            search = _search_of(outcome)
            if search is not None:
                searches.append(search)
            yield ToolEvent(
                name=call.name,
                arguments=call.arguments,
                outcome=outcome,
                duration_ms=round((time.perf_counter() - tool_start) * 1000, 2),
            )
            conversation.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id or f"call_{round_index}_{i}",
                    "content": tool_result_text(outcome.content),
                }
            )


def _evidence_start(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Evidence:
    """The turn's evidence before any tool runs: the page's product and the shopper's words,
    read from the messages the model is given (only a system message says which page)."""
    texts = [(m.get("role"), content_text(m.get("content"))) for m in messages]
    pages = [page_context_parse(text) for role, text in texts if role == "system"]
    page = next((page for page in pages if page), None) or {}
    shopper = [text for role, text in texts if role == "user"][-1:]
    # The shopper's own facts (remembered, or said earlier in a signed-out chat) are their
    # figures: "your budget is up to 60 EUR" is theirs to hear.
    notes = "\n".join(text for _, text in texts if NOTES_OPEN in text)
    return evidence_start(
        vocabulary=_tool_vocabulary(tools),
        page_product=page.get("product") if page.get("kind") == "product" else None,
        shopper_texts=shopper,
        notes=notes,
    )


def _tool_vocabulary(tools: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The colours and sizes the search tool's schema names: the catalog's own."""
    for tool in tools:
        function = tool.get("function") or {}
        if function.get("name") == "search_products":
            properties = (function.get("parameters") or {}).get("properties") or {}
            return {
                "colours": list((properties.get("colour") or {}).get("enum") or []),
                "sizes": list((properties.get("size") or {}).get("enum") or []),
            }
    return {"colours": [], "sizes": []}


def _arguments(raw: str) -> dict[str, Any]:
    try:
        parsed = json.loads(raw or "{}")
    except (ValueError, RecursionError):  # a 5,000-digit number, deep nesting: no arguments
        return {}
    return parsed if isinstance(parsed, dict) else {}
