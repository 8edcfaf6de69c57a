"""The agent loop: stream a model's answer, run the tools it calls, at most N rounds.

Streamed tool-call arguments arrive in pieces keyed by `index`; they are accumulated and
parsed once, when the round ends.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import openai

from assistant.tools import ToolOutcome

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


@dataclass
class FinalEvent:
    text: str
    products: list[dict[str, Any]] = field(default_factory=list)


AgentEvent = TokenEvent | ToolEvent | RoundEvent | FinalEvent
ToolRunner = Callable[[str, str], Awaitable[ToolOutcome]]


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


def _cards_for_answer(text: str, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cards for the products the answer names; else the latest results, a few of them."""
    unique: dict[str, dict[str, Any]] = {}
    for card in seen:
        unique[card["sku"]] = card
    named = [card for card in unique.values() if card["name"] in text]
    if named:
        return named[:6]
    return list(unique.values())[-4:] if text and seen else []


async def agent_run(
    *,
    client: openai.AsyncOpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    run_tool: ToolRunner,
    max_rounds: int = MAX_ROUNDS,
) -> AsyncIterator[AgentEvent]:
    """Yield tokens, tool results and round timings, then one FinalEvent.

    Raises the openai SDK's errors (APIError, APITimeoutError, ...) to the caller.
    """
    conversation = list(messages)
    cards: list[dict[str, Any]] = []
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
        async for chunk in stream:
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            if delta.content:
                text_parts.append(delta.content)
                yield TokenEvent(delta.content)
            for call_delta in delta.tool_calls or []:
                pending = calls.setdefault(call_delta.index, _PendingCall())
                if call_delta.id:
                    pending.id = call_delta.id
                if call_delta.function is not None:
                    if call_delta.function.name:
                        pending.name += call_delta.function.name
                    if call_delta.function.arguments:
                        pending.arguments += call_delta.function.arguments
        yield RoundEvent(
            index=round_index,
            start_ms=round((round_start - started) * 1000, 2),
            duration_ms=round((time.perf_counter() - round_start) * 1000, 2),
        )
        text = "".join(text_parts)
        if not calls or last_round:
            yield FinalEvent(text=text, products=_cards_for_answer(text, cards))
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
            cards.extend(outcome.products)
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
                    "content": _json(outcome.content),
                }
            )


def _json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, default=str)
