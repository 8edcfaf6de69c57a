"""The turn pipeline (design section 4): session, recall, agent loop, then memory writes.

It yields protocol events (docs/protocol.md) as plain dicts; the websocket consumer and the
REST API only forward them. Memory failures degrade the turn to "no memory"; they never
cost the shopper the answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import openai
from asgiref.sync import sync_to_async
from django.utils import timezone

from assistant.agent import FinalEvent, RoundEvent, TokenEvent, ToolEvent, agent_run
from assistant.demo import demo_settings_get
from assistant.models import ChatSession, ChatTurn
from assistant.prompting import turn_messages
from assistant.tools import tool_run, tool_schemas, vocabulary_load
from assistant.validation import CloseRequest, TurnRequest
from llm.factory import chat_client, model_for
from memoryapp.conf import retention_preset_for
from memoryapp.render import notes_message
from memoryapp.services import (
    MemorySession,
    exchange_remember,
    memories_recall,
    memory_tool_recall,
    session_close,
    session_open,
)
from memoryapp.types import MemoryUnavailable, Recall
from shop.services import shopper_display_name

logger = logging.getLogger("assistant")

Event = dict[str, Any]


class _Spans:
    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.items: list[dict[str, Any]] = []

    def now_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)

    def add(self, name: str, start_ms: float, duration_ms: float) -> None:
        self.items.append(
            {"name": name, "start_ms": start_ms, "duration_ms": round(duration_ms, 2)}
        )


def _session_event(*, memory: MemorySession | None, mode: str, shopper: str | None) -> Event:
    info = memory.info if memory else None
    return {
        "type": "session",
        "session_id": info.session_id if info else None,
        "mode": mode,
        "shopper": shopper,
        "session_date": info.session_date.isoformat() if info and info.session_date else None,
        "retention": retention_preset_for(info.retention_seconds) if info else None,
        "retention_seconds": info.retention_seconds if info else None,
        "created": info.created if info else False,
    }


@sync_to_async
def _chat_session_touch(*, user, memory: MemorySession, retention: str | None) -> ChatSession:
    info = memory.info
    chat_session, _ = ChatSession.objects.get_or_create(
        shopper=user,
        memory_session_id=info.session_id,
        defaults={
            "session_date": info.session_date,
            "retention": retention_preset_for(info.retention_seconds) or (retention or ""),
            "retention_seconds": info.retention_seconds,
        },
    )
    return chat_session


@sync_to_async
def _chat_turn_record(
    *,
    chat_session: ChatSession,
    recall: Recall | None,
    saved: dict,
    timings: dict,
    tools: list,
    model: str,
    error: str,
) -> ChatTurn:
    index = chat_session.turns.count() + 1
    turn = ChatTurn.objects.create(
        session=chat_session,
        index=index,
        model=model,
        recalled=[
            {"block_id": i.block_id, "scope": i.scope, "score": i.score}
            for i in (recall.items if recall else [])
        ],
        saved=saved,
        timings=timings,
        tools=tools,
        error=error[:300],
    )
    ChatSession.objects.filter(pk=chat_session.pk).update(turn_count=index)
    return turn


async def turn_run(*, user, request: TurnRequest) -> AsyncIterator[Event]:
    """Run one shopper message through the pipeline, yielding protocol events in order."""
    spans = _Spans()
    signed_in = bool(user and user.is_authenticated)
    shopper = await sync_to_async(shopper_display_name)(user) if signed_in else None
    memory: MemorySession | None = None
    mode = "stateless"
    demo = await sync_to_async(demo_settings_get)()
    if signed_in and demo.memory_enabled:
        start = spans.now_ms()
        try:
            memory = await session_open(
                username=user.username,
                display_name=shopper or user.username,
                session_id=request.session_id,
                session_date=request.session_date,
                # A client that says nothing gets the default staff chose for the demo.
                retention=request.retention or demo.default_retention,
            )
            mode = "remembering"
        except MemoryUnavailable:
            mode = "memory_unavailable"
        spans.add("memory.session", start, spans.now_ms() - start)
    yield _session_event(memory=memory, mode=mode, shopper=shopper)

    chat_session = None
    if memory is not None:
        chat_session = await _chat_session_touch(
            user=user, memory=memory, retention=request.retention
        )

    recall: Recall | None = None
    notes = None
    if memory is not None:
        start = spans.now_ms()
        recall = await memories_recall(
            memory=memory, message=request.text, turn_count=request.turn_count
        )
        spans.add("memory.recall", start, recall.duration_ms)
        notes = notes_message(recall.lines)
        yield {
            "type": "memory.searched",
            "counts": recall.counts,
            "duration_ms": recall.duration_ms,
            "failed": recall.failed,
            "items": [item.as_dict() for item in recall.items],
        }

    vocabulary = await vocabulary_load()

    async def recall_tool(query: str):
        return await memory_tool_recall(memory=memory, query=query) if memory else []

    async def run_tool(name: str, arguments: str):
        return await tool_run(
            name=name,
            raw_arguments=arguments,
            vocabulary=vocabulary,
            recall=recall_tool if memory is not None else None,
        )

    model = model_for("assistant")
    final: FinalEvent | None = None
    tools_used: list[dict[str, Any]] = []
    error = ""
    model_start = spans.now_ms()
    try:
        async for event in agent_run(
            client=chat_client(),
            model=model,
            messages=turn_messages(signed_in=signed_in, notes=notes, text=request.text),
            tools=tool_schemas(vocabulary=vocabulary, with_memory=memory is not None),
            run_tool=run_tool,
        ):
            if isinstance(event, TokenEvent):
                yield {"type": "token", "text": event.text}
            elif isinstance(event, ToolEvent):
                spans.add(
                    f"tool.{event.name}", spans.now_ms() - event.duration_ms, event.duration_ms
                )
                tools_used.append(
                    {
                        "name": event.name,
                        "summary": event.outcome.summary,
                        "duration_ms": event.duration_ms,
                    }
                )
                yield {
                    "type": "tool",
                    "name": event.name,
                    "arguments": event.arguments,
                    "summary": event.outcome.summary,
                    "duration_ms": event.duration_ms,
                }
            elif isinstance(event, RoundEvent):
                spans.add(
                    f"model.round{event.index + 1}", model_start + event.start_ms, event.duration_ms
                )
            elif isinstance(event, FinalEvent):
                final = event
    except openai.OpenAIError as exc:
        timed_out = isinstance(exc, openai.APITimeoutError)
        error = f"model {'timed out' if timed_out else 'error'}: {exc}"
        logger.warning("Assistant model failed: %s", error)
        yield {
            "type": "error",
            "code": 504 if timed_out else 502,
            "message": "The assistant took too long to answer. Please try again."
            if timed_out
            else "The assistant could not answer just now. Please try again.",
            "retryable": True,
        }

    if final is not None:
        yield {
            "type": "done",
            "text": final.text,
            "products": final.products,
            "model": model,
            "spans": list(spans.items),
        }

    saved: dict[str, list[str]] = {}
    if memory is not None and final is not None:
        start = spans.now_ms()
        written = await exchange_remember(memory=memory, query=request.text, answer=final.text)
        duration = spans.now_ms() - start
        spans.add("memory.write", start, duration)
        saved = {"turn": written["turn"], "fact": written["fact"]}
        yield {
            "type": "memory.added",
            "block_ids": saved,
            "facts": written["facts"],
            "duration_ms": round(duration, 2),
        }
    if chat_session is not None:
        await _chat_turn_record(
            chat_session=chat_session,
            recall=recall,
            saved=saved,
            timings={"spans": spans.items, "total_ms": spans.now_ms()},
            tools=tools_used,
            model=model,
            error=error,
        )


async def conversation_close(*, user, request: CloseRequest) -> Event:
    """End the shopper's session: its episode is written, the memory session ended."""
    if not (user and user.is_authenticated) or not request.session_id:
        return {"type": "closed", "session_id": request.session_id, "episode_block_id": None}
    shopper = await sync_to_async(shopper_display_name)(user)
    episode_id = None
    # Staff can switch memory off for the whole demo: then nothing is written at close either.
    if (await sync_to_async(demo_settings_get)()).memory_enabled:
        episode_id = await session_close(
            username=user.username, display_name=shopper, session_id=request.session_id
        )
    await sync_to_async(
        ChatSession.objects.filter(
            shopper=user, memory_session_id=request.session_id, closed_at__isnull=True
        ).update
    )(closed_at=timezone.now())
    return {"type": "closed", "session_id": request.session_id, "episode_block_id": episode_id}
