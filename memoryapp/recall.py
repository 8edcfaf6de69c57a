"""Recall for a turn: this session, the shopper's facts, earlier visits and episodes.

The calls are issued together, each bounded and guarded on its own; the early recall goes
out with the session's lookup (`recall_begin`). The recall_memory tool's look-up is here
too: the same reads, asked for by the model.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from agentmemory import AsyncSessionResource

from memoryapp.blocks import EPISODE, FACT, TURN, TURN_KIND, block_kind
from memoryapp.cleaning import (
    session_id_clean,
    text_clean,
)
from memoryapp.clients import memory_session_async
from memoryapp.conf import MemoryConf, memory_conf
from memoryapp.consolidation import (
    facts_distinct,
    newest_distinct,
)
from memoryapp.guard import attempted, guarded, outcome_noted
from memoryapp.notes_budget import notes_budgeted
from memoryapp.render import (
    exchange_compressed,
    recall_items,
    tool_items,
)
from memoryapp.sessions import OpenSession
from memoryapp.types import MemoryUnavailable, Recall

LIST_PAGE_SIZE = 100
SESSION_SEARCH_K = 10
TOOL_SEARCH_K = 8
# Fact recall asks for its budget: consolidation keeps one current fact per slot at write
# time, so copies are left only from data written before it existed. When collapsing those
# leaves the budget short, it asks again for four times as many (at most FACT_FETCH_MAX).
# (Asking for three times the budget on every turn made each recall carry 20 more blocks,
# parsed and collapsed by the app, to guard against what the retry covers.)
FACT_FETCH_MAX = 400
FACT_REFETCH_GROWTH = 4
# Minting retries with a fresh read after each conflict. Every conflict means another mint

# A recall's call past its timeout goes on, up to this many timeouts more, only while the
# server answers other requests (`guard.while_answering`): a loaded machine, not a hung server.
RECALL_GRACE = 1.0


async def session_list(resource: AsyncSessionResource, *, cap: int) -> list[Any]:
    """The whole session newest first, paging past the server's default page, up to cap."""
    blocks, _ = await session_newest(resource, exchanges=None, first_page=LIST_PAGE_SIZE, cap=cap)
    return blocks


def _is_exchange(block: Any) -> bool:
    return block_kind(block) == TURN_KIND and getattr(block, "message", None) is not None


async def session_newest(
    resource: AsyncSessionResource, *, exchanges: int | None, first_page: int, cap: int
) -> tuple[list[Any], int]:
    """The session newest first until it holds `exchanges` exchanges, it ends or cap blocks.

    Counted in exchanges, not blocks: facts, and the superseded copies consolidation writes
    into the session in progress, sit between the turns in any number. The exchanges seen
    are returned with the blocks (None: list to the end or the cap).
    """
    blocks: list[Any] = []
    seen = 0
    offset = 0
    limit = first_page
    while len(blocks) < cap and (exchanges is None or seen < exchanges):
        page = await resource.list_memories(
            limit=max(1, min(limit, cap - len(blocks), 200)), offset=offset
        )
        for block in page.memory_blocks:
            blocks.append(block)
            seen += _is_exchange(block)
            if exchanges is not None and seen >= exchanges:
                break
        offset += page.count
        limit = LIST_PAGE_SIZE
        if page.count == 0 or offset >= page.total:
            break
    return blocks, seen


def _window_cut(blocks: list[Any], *, turns: int) -> list[Any]:
    """The newest blocks down to the `turns`-th newest exchange (blocks newest first)."""
    if turns <= 0:
        return []
    seen = 0
    for index, block in enumerate(blocks):
        seen += _is_exchange(block)
        if seen >= turns:
            return blocks[: index + 1]
    return blocks


async def _session_window(resource: AsyncSessionResource, *, conf: MemoryConf) -> list[Any]:
    """The newest `verbatim_window_turns` exchanges, and what was stored between them.

    The first page asks for room for a few facts per exchange; a session where more was
    stored between them (changes of mind leave superseded copies) is paged until the window
    is whole, so the newest exchanges always arrive together.
    """
    turns = conf.verbatim_window_turns
    if turns <= 0:
        return []
    blocks, _ = await session_newest(
        resource, exchanges=turns, first_page=turns * 3 + 3, cap=conf.max_session_blocks
    )
    return blocks


async def _session_search(resource: AsyncSessionResource, *, query: str | None) -> list[Any]:
    found = await resource.search_memory(query=query, filters={"relevant_k": SESSION_SEARCH_K})
    return list(found.memory_blocks)


@dataclass
class _Fetched:
    """What one of a recall's calls brought back, before its outcome is noted."""

    name: str
    lost: str
    blocks: list[Any] | None
    error: BaseException | None


async def _recall_fetch(
    resource: AsyncSessionResource, *, query: str | None, turn_count: int, created: bool
) -> list[_Fetched]:
    """A recall's calls, issued together, each bounded on its own; nothing logged yet."""
    conf = memory_conf()

    def everywhere(annotations: dict[str, str], k: int) -> dict[str, Any]:
        return {"session_ids": "all", "annotations": annotations, "relevant_k": k}

    async def search(filters: dict[str, Any]) -> list[Any]:
        found = await resource.search_memory(query=query, filters=filters)
        return list(found.memory_blocks)

    # Set when the listing finds the session past the threshold the client's count is under.
    past_threshold = False

    async def listed() -> list[Any]:
        """The session under the threshold; past it, whatever turn_count said, its window.

        turn_count comes from the client, which can lose count or lie (a REST caller that
        leaves it out sends 0): the listing stops once it holds the threshold's number of
        exchanges, and the turn goes on as one past the threshold.
        """
        nonlocal past_threshold
        blocks, seen = await session_newest(
            resource,
            exchanges=conf.search_threshold_turns,
            first_page=LIST_PAGE_SIZE,
            cap=conf.max_session_blocks,
        )
        if seen < conf.search_threshold_turns:
            return blocks
        past_threshold = True
        return _window_cut(blocks, turns=conf.verbatim_window_turns)

    # name -> (call, what is lost when it fails), in de-duplication order.
    calls: dict[str, tuple[Coroutine[Any, Any, list[Any]], str]] = {}
    if created:
        pass  # a session minted this turn holds nothing yet
    elif turn_count < conf.search_threshold_turns:
        calls["session"] = (listed(), "this session's recall")
    else:
        calls["session"] = (_session_window(resource, conf=conf), "this session's newest turns")
        calls["session_search"] = (
            _session_search(resource, query=query),
            "this session's older turns",
        )
    calls["fact"] = (
        _facts_current(resource, query=query, k=conf.cross_session_fact_k),
        "fact recall",
    )
    calls["turn"] = (search(everywhere(TURN, conf.cross_session_turn_k)), "earlier-visit recall")
    calls["episode"] = (_episodes(resource, k=conf.cross_session_episode_k), "episode recall")
    outcomes = await asyncio.gather(
        *(
            attempted(
                call,
                timeout=conf.timeout_seconds,
                grace=conf.timeout_seconds * RECALL_GRACE,
                name=f"the recall's {name} call",
            )
            for name, (call, _) in calls.items()
        )
    )
    fetched = [
        _Fetched(name, lost, blocks, error)
        for (name, (_, lost)), (blocks, error) in zip(calls.items(), outcomes, strict=True)
    ]
    if past_threshold:
        # Only a miscounting client waits for this second round trip; an honest one past
        # the threshold has its search in flight with the rest.
        lost = "this session's older turns"
        blocks, error = await attempted(
            _session_search(resource, query=query),
            timeout=conf.timeout_seconds,
            grace=conf.timeout_seconds * RECALL_GRACE,
            name="the recall's session_search call",
        )
        fetched.insert(1, _Fetched("session_search", lost, blocks, error))
    return fetched


def _recall_build(
    fetched: list[_Fetched], *, session_id: str, started: float, answered: float
) -> Recall:
    """Note each call's outcome, then de-duplicate, budget and render what came back.

    Its duration is the calls' (`started` to `answered`, when the last came back) and this
    build's own: not the time the turn spent elsewhere before it asked for the recall (its
    chat record, say), which a recall begun early would otherwise count as its own.
    """
    building = time.perf_counter()
    conf = memory_conf()
    found: dict[str, list[Any]] = {}
    failed = []
    for call in fetched:
        if outcome_noted(path="read", lost=call.lost, error=call.error):
            found[call.name] = call.blocks or []
        else:
            found[call.name] = []
            failed.append(call.name)
    # Earlier visits that said the same thing: the newest one is enough.
    found["turn"] = newest_distinct(found["turn"], text=exchange_compressed)
    items = recall_items(
        session_blocks=found.get("session", []) + found.get("session_search", []),
        fact_blocks=found["fact"],
        turn_blocks=found["turn"],
        episode_blocks=found["episode"],
        current_session_id=session_id,
        window_turns=conf.verbatim_window_turns,
        max_chars=conf.note_max_chars,
    )
    items = notes_budgeted(items, max_tokens=conf.notes_max_tokens)
    counts = {name: 0 for name in ("session", "fact", "turn", "episode")}
    for item in items:
        counts[item.scope] = counts.get(item.scope, 0) + 1
    return Recall(
        items=items,
        counts=counts,
        duration_ms=round((answered - started + time.perf_counter() - building) * 1000, 2),
        failed=failed,
        started=started,
    )


def _recall_query(message: str) -> str | None:
    return text_clean(message).strip() or None


async def memories_recall(*, memory: OpenSession, message: str, turn_count: int) -> Recall:
    """Recall for one turn: the searches issued together, each guarded on its own.

    Under the threshold this session is listed whole; past it, its newest window and a
    search within it are separate calls, so a failed search never costs the window that a
    follow-up ("the black one?") needs. The window comes first so it wins de-duplication.
    """
    started = time.perf_counter()
    fetched = await _recall_fetch(
        memory.resource,
        query=_recall_query(message),
        turn_count=turn_count,
        created=memory.info.created,
    )
    answered = time.perf_counter()
    return _recall_build(fetched, session_id=memory.session_id, started=started, answered=answered)


@dataclass
class EarlyRecall:
    """A recall begun for the session the client named, while that session is looked up."""

    session_id: str
    message: str
    turn_count: int
    started: float
    task: asyncio.Task[list[_Fetched]]
    answered: float = 0.0  # when its last call came back

    def __post_init__(self) -> None:
        self.task.add_done_callback(self._answered)

    def _answered(self, _task: asyncio.Task) -> None:
        self.answered = time.perf_counter()


def recall_begin(
    *, user_id: str, session_id: str | None, message: str, turn_count: int
) -> EarlyRecall | None:
    """Start the turn's recall for the client's session id before the session is opened.

    Opening a resumed session is a round trip of its own, and the recall needs nothing it
    returns but the id the client already sent: issued together, the two cost one round
    trip instead of two before the first token. The calls read only this shopper's memory;
    what they bring back counts only once `recall_finish` knows the session was resumed.
    """
    session_id = session_id_clean(session_id)
    if session_id is None:
        return None  # a new session will be minted: nothing to recall in it yet
    resource = memory_session_async(user_id, session_id)
    task = asyncio.ensure_future(
        _recall_fetch(resource, query=_recall_query(message), turn_count=turn_count, created=False)
    )
    return EarlyRecall(session_id, message, turn_count, time.perf_counter(), task)


async def recall_finish(early: EarlyRecall, *, memory: OpenSession) -> Recall:
    """The turn's recall: the early one if the session it named was resumed, else afresh.

    A stale id (the session ended, or is gone) gets a new session: the early calls read the
    old one, so they are dropped unnoted and the recall runs for the new session.
    """
    if early.session_id == memory.session_id and not memory.info.created:
        fetched = await early.task
        return _recall_build(
            fetched,
            session_id=memory.session_id,
            started=early.started,
            answered=early.answered or time.perf_counter(),
        )
    recall_abandon(early)
    return await memories_recall(memory=memory, message=early.message, turn_count=early.turn_count)


def recall_abandon(early: EarlyRecall | None) -> None:
    """Drop an early recall whose turn goes on without it (memory unavailable, stopped).

    Cancelling is enough: its calls note nothing, and a cancelled task is never waited on.
    """
    if early is not None:
        early.task.cancel()


async def _facts_current(resource: AsyncSessionResource, *, query: str | None, k: int) -> list[Any]:
    """The fact budget filled with distinct current facts, best ranked first."""
    fetch = k
    while True:
        found = await resource.search_memory(
            query=query,
            filters={"session_ids": "all", "annotations": FACT, "relevant_k": fetch},
        )
        blocks = list(found.memory_blocks)
        distinct = facts_distinct(blocks)
        # A search without a query returns every fact already; so does a short page.
        if len(distinct) >= k or query is None or len(blocks) < fetch or fetch >= FACT_FETCH_MAX:
            return distinct[:k]
        fetch = min(fetch * FACT_REFETCH_GROWTH, FACT_FETCH_MAX)


async def _episodes(resource: AsyncSessionResource, *, k: int) -> list[Any]:
    """Past-visit summaries of other sessions, unresolved first, then newest."""
    # No query, so the server returns every episode (relevant_k applies to ranked searches).
    found = await resource.search_memory(
        filters={"session_ids": "all", "annotations": EPISODE, "order_by": "ingested_at"}
    )
    # The server lists newest first; a stable sort keeps that order within each group.
    blocks = [b for b in found.memory_blocks if b.session_id != resource.session_id]
    blocks = newest_distinct(blocks, text=lambda b: b.fact or "")  # a visit told twice
    blocks.sort(key=lambda b: (b.annotations or {}).get("resolved") == "true")
    return blocks[:k]


async def memory_tool_recall(*, memory: OpenSession, query: str) -> list[Any]:
    """The agent's explicit look-up: semantic search over this shopper's memory only.

    Raises MemoryUnavailable when the search failed (logged once by the guard): the agent
    must be able to tell "memory could not be searched" from "nothing remembered".
    """
    conf = memory_conf()
    query = text_clean(query or "").strip()
    if not query:
        return []
    ok, found = await guarded(
        memory.resource.search_memory(
            query=query, filters={"session_ids": "all", "relevant_k": TOOL_SEARCH_K}
        ),
        path="read",
        lost="a memory look-up",
        timeout=conf.timeout_seconds,
    )
    if not ok or found is None:
        raise MemoryUnavailable("the memory look-up failed")
    return tool_items(list(found.memory_blocks), max_chars=conf.note_max_chars)
