"""What a request and the conversation so far establish: the turn read, and its state."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from llm.offline.assistant.conversation import Plan, State, refine
from llm.offline.assistant.plan import message_plan
from llm.offline.assistant.references import THIS
from llm.offline.notes import Notes, notes_parse
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary, vocabulary_from_tools
from llm.prompts import NOTES_OPEN, content_text
from llm.transcript import (
    ShownProduct,
    memory_state_parse,
    page_context_parse,
    products_shown_parse,
)

_OFFER = re.compile(r"Shall I look for other (?P<category>[\w -]+?) in (?P<colour>[\w -]+?)\?")


@dataclass
class ToolRound:
    name: str
    arguments: dict
    result: dict


@dataclass
class Turn:
    shopper: str
    notes: Notes
    rounds: list[ToolRound]
    tools: set[str]
    vocabulary: Vocabulary
    page: dict | None = None
    mode: str = "stateless"


def turn_read(request: dict) -> Turn:
    messages = request["messages"]
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    last_user = users[-1] if users else -1
    shopper = content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    before = messages[: max(last_user, 0)]
    notes_text = "\n".join(
        content_text(m.get("content"))
        for m in before
        if m.get("role") == "user" and NOTES_OPEN in content_text(m.get("content"))
    )
    # Only system messages say which page the shopper is on or what memory holds: a
    # shopper's own message can claim neither.
    system = [
        content_text(m.get("content")) for m in before if m.get("role") in ("system", "developer")
    ]
    page = next((p for p in map(page_context_parse, system) if p), None)
    tools = {
        tool["function"]["name"] for tool in request.get("tools") or [] if tool.get("function")
    }
    mode = next((m for m in map(memory_state_parse, system) if m), None)
    if mode is None:
        mode = "remembering" if "recall_memory" in tools else "stateless"
    elif mode == "remembering" and "recall_memory" not in tools:
        mode = "memory_unavailable"  # said to remember, but given no way to look
    return Turn(
        shopper=shopper,
        notes=notes_parse(notes_text),
        rounds=_rounds_read(messages[last_user + 1 :]),
        tools=tools,
        vocabulary=vocabulary_from_tools(request.get("tools")),
        page=page,
        mode=mode,
    )


# --- the conversation so far ----------------------------------------------------------------


def conversation_state(turn: Turn) -> State:
    """Replay this conversation's verbatim exchanges, oldest first, with the same rules."""
    state = State()
    for exchange in turn.notes.exchanges:
        plan = message_plan(exchange.query, state, turn.vocabulary, turn.page)
        shown = products_shown_parse(exchange.answer)
        state = _state_after(state, _as_answered(plan, exchange.query, shown), shown)
        state.offer = _offer_read(exchange.answer, turn.vocabulary)
    return state


def _as_answered(plan: Plan, query: str, shown: list[ShownProduct]) -> Plan:
    """The plan an earlier message had, as its answer records it. The page the shopper was on
    then is not known now: "does this come in red?" asked on a product's page reads as a
    search without it, though its answer was about that one product."""
    if plan.kind == "search" and len(shown) == 1 and THIS.search(query.lower()):
        return Plan(kind="product", product=shown[0], asked_colour=plan.request.colour)
    return plan


def _offer_read(answer: str, vocabulary: Vocabulary) -> ShopperRequest | None:
    """The search an answer offered to run, when the shopper only has to say yes."""
    found = _OFFER.search(answer)
    if not found:
        return None
    offered = request_parse(f"{found['category']} in {found['colour']}", vocabulary)
    return offered if offered.categories and offered.colours else None


def _state_after(state: State, plan: Plan, shown: list[ShownProduct]) -> State:
    state = replace(
        state,
        lifted=state.lifted | plan.lifted,
        asked_about_me=plan.kind == "memory",
        compared=plan.kind == "compare",
        # A comparison is about two: neither is the one in focus after it.
        about_one=plan.kind == "product"
        or (plan.kind not in ("search", "compare") and state.about_one),
    )
    if plan.kind == "search":
        if plan.more:
            state.listed += len(shown)
        elif plan.below is not None and not shown:
            # Nothing is cheaper: the list on screen is still the one in force, so "show
            # more" goes on with it instead of repeating a search that found nothing.
            pass
        elif not shown and not plan.request.categories and state.search is not None:
            # "Do you have tights?" of a shop that has none: the skirts on screen are still
            # what "show me yellow ones" is about.
            pass
        else:
            state.search, state.listed = plan.request, len(shown)
            if plan.below is None:
                state.picked = ShopperRequest()
    elif plan.kind == "product":
        # A product looked up by what it is: the one its answer showed.
        product = plan.product or (shown[0] if len(shown) == 1 else None)
        if product is not None and product.sku != state.picked_sku:
            state.picked, state.picked_sku = ShopperRequest(), product.sku
        state.picked = refine(
            state.picked,
            ShopperRequest(
                colours=[plan.asked_colour] if plan.asked_colour else [],
                size=plan.asked_size,
            ),
        )
    if shown:
        state.shown = shown
        if plan.kind == "search":
            state.listing = shown
        skus = {product.sku for product in shown}
        state.seen = [*shown, *(product for product in state.seen if product.sku not in skus)]
    return state


def _rounds_read(messages: list[dict]) -> list[ToolRound]:
    calls: dict[str, tuple[str, dict]] = {}
    rounds = []
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                calls[call.get("id")] = (
                    function.get("name", ""),
                    _json_or_empty(function.get("arguments")),
                )
        elif message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id"), ("", {}))
            rounds.append(
                ToolRound(name, arguments, _json_or_empty(content_text(message.get("content"))))
            )
    return rounds


def _json_or_empty(text: object) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
