"""The turn pipeline (design section 4): session, recall, agent loop, then memory writes.

It yields the typed protocol events of `assistant.protocol.events`; the websocket consumer and the
REST API only send them. Memory failures degrade the turn to "no memory"; they never cost
the shopper the answer.

A turn can be stopped until its answer is complete (`TurnProgress.answered`): the task
running it is cancelled, nothing of it is written to memory, and its chat record is kept,
marked stopped, with what it recalled and no saved ids. Once `done` is sent the turn's
memory writes always run to the end.

ORM work runs through Channels' `database_sync_to_async`, which closes stale database
connections around each call, so a socket that stays open for hours survives a database
restart.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import openai
from channels.db import database_sync_to_async

from assistant.demo import demo_settings_get
from assistant.models import DemoSettings
from assistant.protocol import events
from assistant.protocol.validation import CloseRequest, HelloRequest, TurnRequest, text_normalise
from assistant.records.chat_records import TurnRecord, chat_session_closed
from assistant.records.reconcile import healthy_turn_reconcile, visit_close
from assistant.turn.agent import FinalEvent, RoundEvent, TokenEvent, ToolEvent, agent_run
from assistant.turn.greeting import greeting_text, preferences_from_facts, suggestions_compose
from assistant.turn.page import catalog_filters_known, history_notes, page_context_build
from assistant.turn.prompting import turn_messages
from assistant.turn.tools import tool_run, tool_schemas, vocabulary_load
from llm.factory import chat_client, model_for
from llm.transcript import exchange_with_products
from memoryapp.public import ShopperMemory
from memoryapp.turn import (
    Exchange,
    MemoryUnavailable,
    Recall,
    TurnMemory,
)
from shop.services import shopper_display_name

logger = logging.getLogger("assistant")


@dataclass
class TurnProgress:
    """What the caller running a turn can see while it runs.

    `turn_id` is the turn's chat record (set once it exists); `answered` turns true when
    the shopper has their answer (`done`) or its error: from then on Stop no longer applies.
    """

    turn_id: int | None = None
    answered: bool = False


class _Spans:
    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.items: list[events.Span] = []

    def now_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)

    def add(self, name: str, start_ms: float, duration_ms: float) -> None:
        self.items.append(
            {"name": name, "start_ms": start_ms, "duration_ms": round(duration_ms, 2)}
        )


@dataclass
class _TurnLog:
    """What the chat record keeps of a turn: ids, scores and timings, never memory text."""

    recall: Recall | None = None
    saved: dict[str, list[str]] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    stopped: bool = False


# --- database work, each call in Channels' connection hygiene ---------------------------


@database_sync_to_async
def _shopper_name(user) -> str:
    return shopper_display_name(user)


@database_sync_to_async
def _demo_settings() -> DemoSettings:
    return demo_settings_get()


# The tools' own loader: the pipeline and the benchmarks read the vocabulary one way.
_vocabulary = vocabulary_load


_chat_session_closed = database_sync_to_async(chat_session_closed)


def _record_fields(log: _TurnLog, spans: _Spans) -> dict[str, Any]:
    return {
        "recalled": [
            {"block_id": i.block_id, "scope": i.scope, "score": i.score}
            for i in (log.recall.items if log.recall else [])
        ],
        "saved": log.saved,
        "timings": {"spans": spans.items, "total_ms": spans.now_ms()},
        "tools": log.tools,
        "error": log.error,
        "stopped": log.stopped,
    }


# --- the turn -----------------------------------------------------------------------------


def _session_event(
    *, memory: TurnMemory | None, mode: events.Mode, shopper: str | None, requested: str | None
) -> events.Session:
    info = memory.info if memory else None
    if info is not None:
        session_id: str | None = info.session_id
    else:
        # Memory is down for this turn only: the panel keeps its session for the next one.
        session_id = requested if mode == "memory_unavailable" else None
    return events.Session(
        session_id=session_id,
        mode=mode,
        shopper=shopper,
        session_date=info.session_date.isoformat() if info and info.session_date else None,
        retention=info.retention if info else None,
        retention_seconds=info.retention_seconds if info else None,
        created=info.created if info else False,
    )


def _model_error(exc: openai.OpenAIError) -> tuple[str, events.Error]:
    timed_out = isinstance(exc, openai.APITimeoutError)
    error = events.Error(
        code=504 if timed_out else 502,
        message="The assistant took too long to answer. Please try again."
        if timed_out
        else "The assistant could not answer just now. Please try again.",
        retryable=True,
    )
    return f"model {'timed out' if timed_out else 'error'}: {exc}", error


async def turn_run(
    *, user, request: TurnRequest, progress: TurnProgress | None = None
) -> AsyncIterator[events.Event]:
    """Run one shopper message through the pipeline, yielding protocol events in order."""
    progress = progress if progress is not None else TurnProgress()
    spans = _Spans()
    signed_in = bool(user and user.is_authenticated)
    shopper = await _shopper_name(user) if signed_in else None
    memory: TurnMemory | None = None
    mode: events.Mode = "stateless"
    if signed_in:
        demo = await _demo_settings()
        if not demo.memory_enabled:
            mode = "memory_off"
        else:
            start = spans.now_ms()
            try:
                # Its recall goes out with the session's lookup, not after it.
                memory = await TurnMemory.open(
                    account=user,
                    display_name=shopper or user.username,
                    session_id=request.session_id,
                    message=request.text,
                    turn_count=request.turn_count,
                    session_date=request.session_date,
                    # A client that says nothing gets the default staff chose for the demo.
                    retention=request.retention or demo.default_retention,
                )
                mode = "remembering"
            except MemoryUnavailable:
                mode = "memory_unavailable"
            spans.add("memory.session", start, spans.now_ms() - start)
    yield _session_event(memory=memory, mode=mode, shopper=shopper, requested=request.session_id)

    model = model_for("assistant")
    record = (
        TurnRecord(user=user, info=memory.info, retention=request.retention, model=model)
        if memory is not None
        else None
    )

    log = _TurnLog()
    answer = _turn_answer(
        user=user if memory is not None else None,
        shopper=shopper,
        request=request,
        memory=memory,
        mode=mode,
        signed_in=signed_in,
        model=model,
        spans=spans,
        log=log,
        progress=progress,
        record=record,
    )
    try:
        # Closed explicitly when the turn is stopped, down to the model's stream.
        async with aclosing(answer):
            async for event in answer:
                yield event
    except (asyncio.CancelledError, GeneratorExit):
        # Stopped (or the socket went away) before the answer was complete.
        log.stopped = not progress.answered
        raise
    except Exception as exc:
        log.error = f"unexpected: {type(exc).__name__}"
        raise
    finally:
        # A turn stopped before its recall was awaited drops it (a no-op once awaited).
        if memory is not None:
            memory.close()
        if record is not None:
            progress.turn_id = await record.finish(**_record_fields(log, spans))


async def _turn_answer(
    *,
    user: Any,
    shopper: str | None,
    request: TurnRequest,
    memory: TurnMemory | None,
    mode: events.Mode,
    signed_in: bool,
    model: str,
    spans: _Spans,
    log: _TurnLog,
    progress: TurnProgress,
    record: TurnRecord | None = None,
) -> AsyncIterator[events.Event]:
    """Recall, context, the agent loop and `done`; then, once answered, the memory writes."""
    vocabulary = await _vocabulary()
    notes = None
    if memory is not None:
        log.recall = await memory.recall()
        # It may have begun with the session's lookup: the span starts when its calls went out.
        spans.add(
            "memory.recall",
            round((log.recall.started - spans.started) * 1000, 2),
            log.recall.duration_ms,
        )
        notes = log.recall.notes
        yield events.MemorySearched(
            counts=log.recall.counts,
            failed=list(log.recall.failed),
            duration_ms=log.recall.duration_ms,
            items=[events.recalled_line(item) for item in log.recall.items],
        )
    elif request.history or request.said:
        # No memory is read this turn: the browser's own record of the conversation is the
        # verbatim window. It is only read, never stored.
        start = spans.now_ms()
        notes = await history_notes(
            history=request.history,
            said=request.said,
        )
        spans.add("history", start, spans.now_ms() - start)

    page = None
    if request.page is not None:
        start = spans.now_ms()
        page = await page_context_build(page=request.page, vocabulary=vocabulary)
        spans.add("page", start, spans.now_ms() - start)

    async def recall_tool(query: str):
        return await memory.look_up(query) if memory else []

    async def run_tool(name: str, arguments: str):
        return await tool_run(
            name=name,
            raw_arguments=arguments,
            vocabulary=vocabulary,
            recall=recall_tool if memory is not None else None,
        )

    final: FinalEvent | None = None
    model_start = spans.now_ms()
    run = agent_run(
        client=chat_client(),
        model=model,
        messages=turn_messages(
            signed_in=signed_in,
            notes=notes,
            text=request.text,
            page_context=page.message if page else None,
            mode=mode,
        ),
        tools=tool_schemas(vocabulary=vocabulary, with_memory=memory is not None),
        run_tool=run_tool,
        linkable=page.linkable if page else None,
    )
    try:
        async with aclosing(run):
            async for event in run:
                if isinstance(event, TokenEvent):
                    yield events.Token(text=text_normalise(event.text))
                elif isinstance(event, ToolEvent):
                    spans.add(
                        f"tool.{event.name}", spans.now_ms() - event.duration_ms, event.duration_ms
                    )
                    log.tools.append(
                        {
                            "name": event.name,
                            "summary": event.outcome.summary,
                            "duration_ms": event.duration_ms,
                        }
                    )
                    yield events.Tool(
                        name=event.name,
                        arguments=event.arguments,
                        summary=event.outcome.summary,
                        duration_ms=event.duration_ms,
                        items=[events.recalled_line(item) for item in event.outcome.items],
                    )
                elif isinstance(event, RoundEvent):
                    spans.add(
                        event.name or f"model.round{event.index + 1}",
                        model_start + event.start_ms,
                        event.duration_ms,
                    )
                elif isinstance(event, FinalEvent):
                    final = event
    except openai.OpenAIError as exc:
        log.error, error = _model_error(exc)
        logger.warning("Assistant model failed: %s", log.error)
        progress.answered = True
        yield error
        return
    if final is None:
        return
    if record is not None:
        progress.turn_id = await record.turn_id()

    done = events.Done(
        # A model's text is input like any other: what cannot be encoded or stored goes.
        text=text_normalise(final.text),
        products=final.products,
        more=final.more,
        turn_id=progress.turn_id,
        model=model,
        spans=list(spans.items),
        grounding=final.grounding.counts(),
    )
    progress.answered = True
    yield done

    if memory is not None:
        key = str(progress.turn_id) if progress.turn_id is not None else None
        protected = await record.acknowledged() if record is not None else frozenset()
        start = spans.now_ms()
        written = await memory.remember(
            Exchange(
                query=request.text,
                # The products shown go with the answer, so "the black one" resolves later.
                answer=exchange_with_products(done.text, done.products),
            ),
            key=key,
            protected=protected,
        )
        duration = spans.now_ms() - start
        spans.add("memory.write", start, duration)
        # Ids, the failed writes' names and the screen's count: never memory text.
        ids = written.ids.as_dict()
        log.saved = {**ids, "failed": written.failed, "screened_out": written.screened_out}
        yield events.MemoryAdded(
            block_ids=ids,
            facts=written.facts,
            failed=written.failed,
            duration_ms=round(duration, 2),
        )
        if written.ids.turn and user is not None:  # memory answers: settle what it missed
            await healthy_turn_reconcile(
                user=user, shopper=shopper, memory=memory, turn_id=progress.turn_id
            )


# --- opening and closing the panel --------------------------------------------------------


async def greeting_build(*, user, request: HelloRequest) -> events.Welcome:
    """The panel's greeting and three suggestions; reads memory, writes nothing."""
    signed_in = bool(user and user.is_authenticated)
    shopper = await _shopper_name(user) if signed_in else None
    vocabulary = await _vocabulary()
    page = await page_context_build(page=request.page, vocabulary=vocabulary)
    category = None
    if request.page is not None and request.page.kind == "catalog":
        known = catalog_filters_known(request.page.filters, vocabulary=vocabulary)
        category = known.get("category")
    mode: events.Mode = "stateless"
    remembered = None
    if signed_in:
        if not (await _demo_settings()).memory_enabled:
            mode = "memory_off"
        else:
            remembered = await ShopperMemory(account=user).greeting()
            mode = "remembering" if remembered is not None else "memory_unavailable"
    preferences = preferences_from_facts(
        remembered.facts if remembered else (), vocabulary=vocabulary
    )
    return events.Welcome(
        greeting=greeting_text(
            shopper=shopper, returning=bool(remembered and remembered.returning)
        ),
        suggestions=suggestions_compose(
            preferences=preferences,
            product=page.product,
            category=category if isinstance(category, str) else None,
        ),
        mode=mode,
    )


async def conversation_close(*, user, request: CloseRequest) -> events.Closed:
    """End the shopper's session: its episode is written, the memory session ended (or,
    memory unreachable, the close kept pending and retried: `assistant.records.reconcile`)."""
    if not (user and user.is_authenticated) or not request.session_id:
        return events.Closed(session_id=request.session_id, episode_block_id=None)
    shopper = await _shopper_name(user)
    # Staff can switch memory off for the whole demo: then nothing is written at close either.
    if (await _demo_settings()).memory_enabled:
        outcome = await visit_close(user=user, shopper=shopper, session_id=request.session_id)
        return events.Closed(
            session_id=request.session_id, episode_block_id=outcome.episode_block_id
        )
    await _chat_session_closed(user=user, session_id=request.session_id, note="memory off")
    return events.Closed(session_id=request.session_id, episode_block_id=None)
