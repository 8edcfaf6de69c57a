"""The memory policy over the Agent Memory SDK: sessions, recall, recording, episodes.

Every rule of the memory specification is implemented once, here. Reads and writes are
guarded separately: a failure of either never costs the shopper their answer.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from agentmemory import AsyncSessionResource, AsyncUserResource
from agentmemory.exceptions import ConflictError, NotFoundError

from llm.fact_schema import slot_from_sentence
from memoryapp.clients import memory_client_async
from memoryapp.conf import MemoryConf, memory_conf
from memoryapp.consolidation import (
    HISTORY_TYPE,
    FactsPlan,
    facts_distinct,
    facts_plan,
    history_annotations,
    newest_distinct,
)
from memoryapp.guard import MEMORY_ERRORS, guarded, outages
from memoryapp.judge import JudgedFact, episode_compose, facts_judge
from memoryapp.render import exchange_compressed, recall_items, tool_items
from memoryapp.types import MemoryUnavailable, Recall, SessionInfo

SESSION_ID_RE = re.compile(r"^session(\d+)$")
TURN = {"type": "turn"}
FACT = {"type": "fact"}
EPISODE = {"type": "episode"}
LIST_PAGE_SIZE = 100
SESSION_SEARCH_K = 10
TOOL_SEARCH_K = 8
# Fact recall asks for more than its budget so that copies of one fact (stored before
# consolidation existed) and older values of a slot can be collapsed and the budget still
# filled with distinct facts; it asks again, for more, only when that was not enough.
FACT_OVERFETCH = 3
FACT_FETCH_MAX = 400

# Injectable so tests can place "now" where they need it.
clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731


@dataclass
class MemorySession:
    """The shopper's Agent Memory session for the turn in hand."""

    username: str
    resource: AsyncSessionResource
    info: SessionInfo

    @property
    def session_id(self) -> str:
        return self.info.session_id


def session_number_next(session_ids: list[str] | None) -> int:
    """One more than the highest session{n} stored; a count would reuse a deleted id."""
    numbers = [int(m.group(1)) for s in session_ids or [] if (m := SESSION_ID_RE.match(s))]
    return max(numbers, default=0) + 1


def created_at_for(session_date: date | None, *, now: datetime | None = None) -> str | None:
    """A dated session's day with the real time of day, so its turns stay in order."""
    if session_date is None:
        return None
    now = now or clock()
    return datetime.combine(session_date, now.astimezone(UTC).time(), tzinfo=UTC).isoformat()


def _session_info(resource: AsyncSessionResource, *, created: bool) -> SessionInfo:
    metadata = resource.metadata or {}
    raw_date = metadata.get("session_date")
    try:
        session_date = date.fromisoformat(raw_date) if raw_date else None
    except (TypeError, ValueError):
        session_date = None
    return SessionInfo(
        session_id=resource.session_id,
        session_date=session_date,
        retention_seconds=resource.blocks_ttl,
        created=created,
    )


async def user_ensure(*, username: str, display_name: str) -> AsyncUserResource:
    """The shopper's Agent Memory user, created on first use (a racing creator's 409 reads it)."""
    client = memory_client_async()
    try:
        return await client.get_user(username)
    except NotFoundError:
        pass
    try:
        return await client.create_user(username, display_name or username)
    except ConflictError:
        return await client.get_user(username)


async def _session_open(
    *,
    username: str,
    display_name: str,
    session_id: str | None,
    session_date: date | None,
    retention: str | None,
    conf: MemoryConf,
) -> MemorySession:
    if session_id:
        # Looked up under this shopper's path only: another shopper's id is simply not found.
        # Every turn but the first takes this path, so it skips fetching the user: the SDK
        # offers no unfetched user handle, hence its own HTTP client is borrowed here.
        shopper = AsyncUserResource(memory_client_async()._http, username)
        try:
            resource = await shopper.get_session(session_id)
        except NotFoundError:
            resource = None
        if resource is not None and not resource.end_time:
            return MemorySession(username, resource, _session_info(resource, created=False))
    user = await user_ensure(username=username, display_name=display_name)
    metadata: dict[str, Any] = {"retention": retention or "default"}
    if session_date is not None:
        metadata["session_date"] = session_date.isoformat()
    number = session_number_next(user.sessions)
    for attempt in range(5):
        try:
            resource = await user.create_session(
                f"session{number + attempt}",
                metadata=metadata,
                memory_blocks_ttl=conf.retention_seconds(retention),
            )
        except ConflictError:
            continue  # a racing first turn took this number
        return MemorySession(username, resource, _session_info(resource, created=True))
    raise ConflictError("could not mint a session id after 5 attempts")


async def session_open(
    *,
    username: str,
    display_name: str,
    session_id: str | None,
    session_date: date | None = None,
    retention: str | None = None,
) -> MemorySession:
    """Resume the client's session, or mint `session{n}` when it sent none (or a stale one).

    The date and retention apply only when the session is created; afterwards what the
    session was created with is read back off it. Raises MemoryUnavailable.
    """
    conf = memory_conf()
    try:
        return await asyncio.wait_for(
            _session_open(
                username=username,
                display_name=display_name,
                session_id=session_id,
                session_date=session_date,
                retention=retention,
                conf=conf,
            ),
            # Up to three round trips; still bounded so a hung server costs about a second.
            timeout=conf.timeout_seconds * 1.5,
        )
    except MEMORY_ERRORS as exc:
        outages.failed("session", "this turn's memory", exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc


async def _list_session(resource: AsyncSessionResource, *, cap: int) -> list[Any]:
    """The whole session newest first, paging past the server's default page, up to cap."""
    blocks: list[Any] = []
    offset = 0
    while len(blocks) < cap:
        page = await resource.list_memories(
            limit=min(LIST_PAGE_SIZE, cap - len(blocks)), offset=offset
        )
        blocks.extend(page.memory_blocks)
        offset += page.count
        if page.count == 0 or offset >= page.total:
            break
    return blocks


async def _nothing() -> list[Any]:
    return []


async def _session_window_and_search(
    resource: AsyncSessionResource, *, message: str, conf: MemoryConf
) -> list[Any]:
    """Past the threshold: the newest window first (it wins de-duplication), then search."""
    window_size = conf.verbatim_window_turns * 3 + 3
    window, hits = await asyncio.gather(
        resource.list_memories(limit=max(1, min(window_size, 200)), offset=0),
        resource.search_memory(query=message, filters={"relevant_k": SESSION_SEARCH_K}),
    )
    return list(window.memory_blocks) + list(hits.memory_blocks)


async def memories_recall(*, memory: MemorySession, message: str, turn_count: int) -> Recall:
    """Recall for one turn: four searches issued together, each guarded on its own."""
    conf = memory_conf()
    resource = memory.resource
    started = time.perf_counter()
    query = message.strip() or None
    if memory.info.created:
        session_call = _nothing()  # a session minted this turn holds nothing yet
    elif turn_count < conf.search_threshold_turns:
        session_call = _list_session(resource, cap=conf.max_session_blocks)
    else:
        session_call = _session_window_and_search(resource, message=message, conf=conf)

    def everywhere(annotations: dict[str, str], k: int) -> dict[str, Any]:
        return {"session_ids": "all", "annotations": annotations, "relevant_k": k}

    async def search(filters: dict[str, Any]) -> list[Any]:
        found = await resource.search_memory(query=query, filters=filters)
        return list(found.memory_blocks)

    timeout = conf.timeout_seconds
    results = await asyncio.gather(
        guarded(session_call, path="read", lost="this session's recall", timeout=timeout),
        guarded(
            _facts_current(resource, query=query, k=conf.cross_session_fact_k),
            path="read",
            lost="fact recall",
            timeout=timeout,
        ),
        guarded(
            search(everywhere(TURN, conf.cross_session_turn_k)),
            path="read",
            lost="earlier-visit recall",
            timeout=timeout,
        ),
        guarded(
            _episodes(resource, k=conf.cross_session_episode_k),
            path="read",
            lost="episode recall",
            timeout=timeout,
        ),
    )
    names = ("session", "fact", "turn", "episode")
    failed = [name for name, (ok, _) in zip(names, results, strict=True) if not ok]
    session_blocks, fact_blocks, turn_blocks, episode_blocks = (
        result or [] for _, result in results
    )
    # Earlier visits that said the same thing: the newest one is enough.
    turn_blocks = newest_distinct(turn_blocks, text=exchange_compressed)
    items = recall_items(
        session_blocks=session_blocks,
        fact_blocks=fact_blocks,
        turn_blocks=turn_blocks,
        episode_blocks=episode_blocks,
        current_session_id=memory.session_id,
        window_turns=conf.verbatim_window_turns,
        max_chars=conf.note_max_chars,
    )
    counts = {name: 0 for name in names}
    for item in items:
        counts[item.scope] = counts.get(item.scope, 0) + 1
    return Recall(
        items=items,
        counts=counts,
        duration_ms=round((time.perf_counter() - started) * 1000, 2),
        failed=failed,
    )


async def _facts_current(resource: AsyncSessionResource, *, query: str | None, k: int) -> list[Any]:
    """The fact budget filled with distinct current facts, best ranked first."""
    fetch = k * FACT_OVERFETCH
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
        fetch = min(fetch * 4, FACT_FETCH_MAX)


async def _episodes(resource: AsyncSessionResource, *, k: int) -> list[Any]:
    """Past-visit summaries of other sessions, unresolved first, then newest."""
    found = await resource.search_memory(
        filters={"session_ids": "all", "annotations": EPISODE, "order_by": "ingested_at"}
    )
    # The server lists newest first; a stable sort keeps that order within each group.
    blocks = [b for b in found.memory_blocks if b.session_id != resource.session_id]
    blocks = newest_distinct(blocks, text=lambda b: b.fact or "")  # a visit told twice
    blocks.sort(key=lambda b: (b.annotations or {}).get("resolved") == "true")
    return blocks[:k]


async def turn_record(*, memory: MemorySession, query: str, answer: str) -> list[str]:
    """Store the exchange as one turn block; it inherits the session's retention."""
    conf = memory_conf()
    ok, response = await guarded(
        memory.resource.add_memory(
            messages=[{"user_content": query, "assistant_content": answer}],
            annotations=TURN,
            context_required=True,
            created_at=created_at_for(memory.info.session_date),
        ),
        path="write",
        lost="this exchange",
        timeout=conf.write_timeout_seconds,
    )
    return list(response.block_ids) if ok and response else []


async def facts_record(*, memory: MemorySession, facts: Sequence[JudgedFact | str]) -> list[str]:
    """Store judged facts, consolidated with the shopper's current facts (consolidation.py).

    Facts are written in their own requests (the server rejects messages and facts in one)
    and outlive the session (TTL 0 by default). Returns the ids of the facts stored; a
    restatement stores nothing. With the current facts unreadable, the facts are stored
    as they are: a copy is collapsed at recall, a lost fact is lost for good.
    """
    return [block_id for block_id, _ in await _facts_store(memory=memory, facts=facts)]


async def _facts_store(
    *, memory: MemorySession, facts: Sequence[JudgedFact | str]
) -> list[tuple[str, str]]:
    """facts_record's work; returns (block id, sentence) of each fact stored."""
    judged = [
        f if isinstance(f, JudgedFact) else JudgedFact(f, slot_from_sentence(f)) for f in facts
    ]
    if not judged:
        return []
    conf = memory_conf()
    created_at = created_at_for(memory.info.session_date)
    ok, current = await guarded(
        memory.resource.search_memory(filters={"session_ids": "all", "annotations": FACT}),
        path="read",
        lost="consolidating this exchange's facts",
        timeout=conf.write_timeout_seconds,
    )
    stated_at = datetime.fromisoformat(created_at) if created_at else clock()
    plan = facts_plan(
        new=judged,
        current=list(current.memory_blocks) if ok and current else [],
        stated_at=stated_at,
    )
    stored = await asyncio.gather(
        *(_fact_add(memory, fact, created_at=created_at) for fact in plan.store)
    )
    await _facts_retire(memory, plan, stored_ids=list(stored))
    return [
        (block_id, fact.text) for block_id, fact in zip(stored, plan.store, strict=True) if block_id
    ]


async def _fact_add(
    memory: MemorySession, fact: JudgedFact, *, created_at: str | None
) -> str | None:
    conf = memory_conf()
    ok, response = await guarded(
        memory.resource.add_memory(
            facts=[fact.text],
            annotations={**FACT, **fact.annotations},
            memory_block_ttl=conf.fact_ttl_seconds,
            context_required=False,
            created_at=created_at,
        ),
        path="write",
        lost="facts from this exchange",
        timeout=conf.write_timeout_seconds,
    )
    return response.block_ids[0] if ok and response and response.block_ids else None


async def _facts_retire(
    memory: MemorySession, plan: FactsPlan, *, stored_ids: list[str | None]
) -> None:
    """Copy replaced facts into history, then delete them and stale copies where they live."""
    conf = memory_conf()
    doomed: list[Any] = list(plan.duplicates)
    for replaced in plan.replaced:
        by = stored_ids[replaced.by] if isinstance(replaced.by, int) else replaced.by
        if by is None:
            continue  # its replacement was not stored: it stays current
        block = replaced.block
        ok, _ = await guarded(
            memory.resource.add_memory(
                facts=[block.fact],
                annotations=history_annotations(block, by=by),
                memory_block_ttl=conf.fact_ttl_seconds,
                context_required=False,
                created_at=block.created_at or block.ingested_at,
            ),
            path="write",
            lost="the history of a replaced fact",
            timeout=conf.write_timeout_seconds,
        )
        if ok:
            doomed.append(block)  # only once its history is safe
    for fact, by in plan.born_history:
        await guarded(
            memory.resource.add_memory(
                facts=[fact.text],
                annotations={
                    **fact.annotations,
                    "type": HISTORY_TYPE,
                    "superseded_by": by,
                    "stated_in": memory.session_id,
                },
                memory_block_ttl=conf.fact_ttl_seconds,
                context_required=False,
                created_at=created_at_for(memory.info.session_date),
            ),
            path="write",
            lost="a fact older than the current one",
            timeout=conf.write_timeout_seconds,
        )
    by_session: dict[str, list[str]] = {}
    for block in doomed:
        by_session.setdefault(block.session_id, []).append(block.block_id)
    for session_id, block_ids in by_session.items():
        # Facts of ended sessions: deleting is allowed there, updating is not.
        session = AsyncSessionResource(memory.resource._http, memory.username, session_id)
        await guarded(
            session.delete_memory(block_ids),
            path="write",
            lost="retiring replaced facts",
            timeout=conf.write_timeout_seconds,
        )


async def exchange_remember(
    *, memory: MemorySession, query: str, answer: str
) -> dict[str, list[str]]:
    """After the answer is sent: record the turn, judge it for facts, record those.

    Returns the saved block ids ("turn", "fact") and the fact sentences stored ("facts"); a
    fact the shopper only restated is not stored again, so it is in neither.
    """
    turn_ids, facts = await asyncio.gather(
        turn_record(memory=memory, query=query, answer=answer),
        facts_judge(query=query, answer=answer),
    )
    stored = await _facts_store(memory=memory, facts=facts)
    return {
        "turn": turn_ids,
        "fact": [block_id for block_id, _ in stored],
        "facts": [text for _, text in stored],
    }


async def memory_tool_recall(*, memory: MemorySession, query: str) -> list[Any]:
    """The agent's explicit look-up: semantic search over this shopper's memory only."""
    conf = memory_conf()
    query = (query or "").strip()
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
        return []
    return tool_items(list(found.memory_blocks), max_chars=conf.note_max_chars)


async def session_close(*, username: str, display_name: str, session_id: str) -> str | None:
    """Write the visit's episode, then end the session. Returns the episode block id."""
    conf = memory_conf()
    try:
        user = await asyncio.wait_for(
            user_ensure(username=username, display_name=display_name),
            timeout=conf.write_timeout_seconds,
        )
        if session_id not in (user.sessions or []):
            return None
        resource = await asyncio.wait_for(
            user.get_session(session_id), timeout=conf.write_timeout_seconds
        )
    except MEMORY_ERRORS as exc:
        outages.failed("write", "the closing episode", exc)
        return None
    if resource.end_time:
        return None
    info = _session_info(resource, created=False)
    blocks = await guarded(
        _list_session(resource, cap=conf.max_session_blocks),
        path="read",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    turns = [
        (b.message.user_content, b.message.assistant_content)
        for b in sorted(blocks[1] or [], key=lambda b: b.created_at or b.ingested_at)
        if b.message is not None
    ]
    episode_id = None
    if turns:
        episode = await episode_compose(turns=turns)
        if episode is not None:
            ok, response = await guarded(
                resource.add_memory(
                    facts=[episode.text],
                    annotations={**EPISODE, "resolved": "true" if episode.found else "false"},
                    context_required=False,
                    created_at=created_at_for(info.session_date),
                ),
                path="write",
                lost="the closing episode",
                timeout=conf.write_timeout_seconds,
            )
            if ok and response and response.block_ids:
                episode_id = response.block_ids[0]
    await guarded(
        resource.end(), path="write", lost="ending the session", timeout=conf.write_timeout_seconds
    )
    return episode_id
