"""The memory policy over the Agent Memory SDK: sessions, recall, recording, episodes, erasure.

Every rule of the memory specification is implemented once, here (the stored records'
reads are in `memoryapp.selectors`). Reads and writes are guarded separately: a failure of
either never costs the shopper their answer.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from agentmemory import AsyncSessionResource, AsyncUserResource
from agentmemory.exceptions import ConflictError, NotFoundError, ValidationError

from llm.fact_schema import slot_from_sentence
from memoryapp.clients import (
    memory_answered_within,
    memory_client_async,
    memory_client_sync,
    memory_session_async,
    memory_user_async,
)
from memoryapp.conf import MemoryConf, memory_conf, retention_preset_for
from memoryapp.consolidation import (
    HISTORY_TYPE,
    FactsPlan,
    facts_distinct,
    facts_plan,
    history_annotations,
    newest_distinct,
)
from memoryapp.guard import attempted, guarded, outage_translated, outcome_noted
from memoryapp.judge import JudgedFact, episode_compose, facts_judge
from memoryapp.notify import memory_changed_send
from memoryapp.records import RecordNotFound
from memoryapp.render import exchange_compressed, recall_items, tool_items
from memoryapp.selectors import record_block_find
from memoryapp.sessions import (
    session_id_clean,
    session_number,
    session_number_highest,
    text_clean,
)
from memoryapp.types import MemoryUnavailable, Recall, SessionInfo

TURN = {"type": "turn"}
FACT = {"type": "fact"}
EPISODE = {"type": "episode"}
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
# succeeded, so a minter needs at most as many attempts as there are minters racing it
# (in one process the per-shopper lock leaves one; across processes, one per process);
# the session-open bound caps the time whatever happens.
MINT_ATTEMPTS = 32
# Opening a session gets AGENT_MEMORY_TIMEOUT_SECONDS for each round trip it makes, plus
# half of one as slack, and never more than three in all: a returning shopper needs one
# round trip, a shopper this process has not seen two (three when new). So a hung server
# costs a turn 1.5 timeouts (a refusing one nothing), while a busy one is given the time
# each trip needs instead of one fixed bound for all of them.
# Past that bound the open goes on, half a timeout at a time up to the cap, only while the
# server has answered other requests in the last half timeout: with the cores saturated by
# other shoppers' turns the server is up and answers late (the open's own answer may even
# be waiting for the event loop), while a hung server answers no one and still costs
# 1.5 timeouts, at most 2 when it hangs just after an answer.
SESSION_TRIP_SLACK = 0.5
SESSION_OPEN_CAP = 3.0
# A recall's call past its timeout goes on, up to this many timeouts more, only while the
# server answers other requests (`guard.while_answering`): a loaded machine, not a hung server.
RECALL_GRACE = 1.0

# Injectable so tests can place "now" where they need it.
clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731

# Per process: shoppers whose memory user is known to exist, with the highest session
# number seen for them. A returning shopper's new session then costs one request (the
# create itself); a create that says the user or the number is gone reads afresh. Only a
# hint, so several processes never disagree about anything that matters; the oldest
# entries make way past KNOWN_SHOPPERS_MAX.
KNOWN_SHOPPERS_MAX = 100_000
_session_highest: dict[str, int] = {}
# Shoppers a read elsewhere found without a memory user (the panel's greeting of a new
# shopper): their first turn creates the user without looking it up again.
_users_absent: dict[str, None] = {}
# Per event loop and shopper: one mint at a time, so this process's tabs never race.
_mint_locks: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[str, asyncio.Lock]
] = weakref.WeakKeyDictionary()


@dataclass
class MemorySession:
    """The shopper's Agent Memory session for the turn in hand."""

    username: str
    resource: AsyncSessionResource
    info: SessionInfo

    @property
    def session_id(self) -> str:
        return self.info.session_id


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
        retention=retention_preset_for(resource.blocks_ttl),
    )


class _TripBudget:
    """The time left to open a session, grown by one timeout for each round trip started.

    The scope ends the open at the cap at the latest; a check at the bound ends it sooner
    unless the server is still answering others (see SESSION_TRIP_SLACK).
    """

    def __init__(self, scope: asyncio.Timeout, *, timeout: float) -> None:
        self._scope = scope
        self._timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._cap = self._loop.time() + timeout * SESSION_OPEN_CAP
        self._due = self._cap
        self._check: asyncio.TimerHandle | None = None
        scope.reschedule(self._cap)
        self.restart()

    def _check_at(self, when: float) -> None:
        self.close()
        self._due = min(when, self._cap)
        if self._due < self._cap:
            self._check = self._loop.call_at(self._due, self._end_unless_answering)

    def _end_unless_answering(self) -> None:
        self._check = None
        step = self._timeout * SESSION_TRIP_SLACK
        if memory_answered_within(step):
            self._check_at(self._loop.time() + step)
        else:
            self._scope.reschedule(self._loop.time())

    def restart(self) -> None:
        """Start counting afresh, e.g. after waiting for another tab's mint."""
        self._check_at(self._loop.time() + self._timeout * SESSION_TRIP_SLACK)

    def wait_up_to_cap(self) -> None:
        self.close()
        self._due = self._cap

    def close(self) -> None:
        """Drop the pending check; the open is over (or waits up to the cap)."""
        if self._check is not None:
            self._check.cancel()
            self._check = None

    async def trip[T](self, call: Awaitable[T]) -> T:
        self._check_at(self._due + self._timeout)
        return await call


def _session_seen(username: str, highest: int) -> None:
    if username not in _session_highest and len(_session_highest) >= KNOWN_SHOPPERS_MAX:
        _session_highest.pop(next(iter(_session_highest)), None)
    _session_highest[username] = max(highest, _session_highest.get(username, 0))


def shopper_sessions_seen(*, username: str, session_ids: Sequence[str]) -> None:
    """Note the sessions a read elsewhere found stored for the shopper (the panel's greeting).

    Their first turn then mints its session in one request instead of two, though this
    process had not seen them: the greeting reads the memory user anyway.
    """
    _session_seen(username, session_number_highest(list(session_ids)))


def shopper_absent_noted(*, username: str) -> None:
    """Note that a read elsewhere found no memory user for the shopper (the greeting).

    Their first turn then creates the user straight away: two requests to open the session
    instead of three. Should another process have created it meanwhile, the 409 reads it.
    """
    if username not in _users_absent and len(_users_absent) >= KNOWN_SHOPPERS_MAX:
        _users_absent.pop(next(iter(_users_absent)), None)
    _users_absent[username] = None


def _mint_lock(username: str) -> asyncio.Lock:
    locks = _mint_locks.setdefault(asyncio.get_running_loop(), weakref.WeakValueDictionary())
    lock = locks.get(username)
    if lock is None:
        lock = locks[username] = asyncio.Lock()
    return lock


async def _user_ensure(*, username: str, display_name: str, budget: _TripBudget) -> int:
    """Read (or create, on first use) the shopper's memory user; their highest session number.

    A racing creator's 409 reads the user instead. What this process knew counts too: it
    may have seen a number the read does not show yet.
    """
    client = memory_client_async()

    async def create() -> AsyncUserResource:
        try:
            return await budget.trip(
                client.create_user(username, text_clean(display_name) or username)
            )
        except ConflictError:
            return await budget.trip(client.get_user(username))

    if username in _users_absent:
        _users_absent.pop(username, None)
        user = await create()
    else:
        try:
            user = await budget.trip(client.get_user(username))
        except NotFoundError:
            user = await create()
    _session_seen(username, session_number_highest(user.sessions))
    return _session_highest.get(username, session_number_highest(user.sessions))


async def _session_get_open(
    shopper: AsyncUserResource, session_id: str
) -> AsyncSessionResource | None:
    """The shopper's open session session_id; None when it is not theirs, gone or ended."""
    try:
        resource = await shopper.get_session(session_id)
    except (NotFoundError, ValidationError):
        # Not found under this shopper's path (another shopper's id is simply not found);
        # a server may answer 400 for a session of an erased user.
        return None
    if (number := session_number(session_id)) is not None:
        _session_seen(shopper.user_id, number)
    return None if resource.end_time else resource


async def _session_mint(
    shopper: AsyncUserResource,
    *,
    display_name: str,
    metadata: dict[str, Any],
    ttl: int,
    budget: _TripBudget,
) -> AsyncSessionResource:
    """Create session{n+1}, n the highest stored, retrying with a fresh read on a conflict."""
    username = shopper.user_id
    highest = _session_highest.get(username)
    if highest is None:
        highest = await _user_ensure(username=username, display_name=display_name, budget=budget)
    for _ in range(MINT_ATTEMPTS):
        session_id = f"session{highest + 1}"
        try:
            resource = await budget.trip(
                shopper.create_session(session_id, metadata=metadata, memory_blocks_ttl=ttl)
            )
        except ConflictError:
            # Another process (or this process before it knew) took the number: read again.
            _session_seen(username, highest + 1)
        except NotFoundError:
            # The user was erased since this process last saw it.
            _session_highest.pop(username, None)
        else:
            _session_seen(username, highest + 1)
            return resource
        highest = await _user_ensure(username=username, display_name=display_name, budget=budget)
    raise ConflictError(f"could not mint a session id after {MINT_ATTEMPTS} attempts")


async def _session_open(
    *,
    username: str,
    display_name: str,
    session_id: str | None,
    session_date: date | None,
    retention: str | None,
    metadata: dict[str, str],
    conf: MemoryConf,
    budget: _TripBudget,
) -> MemorySession:
    shopper = memory_user_async(username)
    if session_id is not None:
        resource = await budget.trip(_session_get_open(shopper, session_id))
        if resource is not None:
            return MemorySession(username, resource, _session_info(resource, created=False))
    metadata = {**metadata, "retention": retention or "default"}
    if session_date is not None:
        metadata["session_date"] = session_date.isoformat()
    # Another tab's mint may be under way: wait for it (up to the cap), then count afresh.
    budget.wait_up_to_cap()
    async with _mint_lock(username):
        budget.restart()
        resource = await _session_mint(
            shopper,
            display_name=display_name,
            metadata=metadata,
            ttl=conf.retention_seconds(retention),
            budget=budget,
        )
    return MemorySession(username, resource, _session_info(resource, created=True))


async def session_open(
    *,
    username: str,
    display_name: str,
    session_id: str | None,
    session_date: date | None = None,
    retention: str | None = None,
    metadata: dict[str, str] | None = None,
    timeout: float | None = None,
) -> MemorySession:
    """Resume the client's session, or mint `session{n}` when it sent none (or a stale one).

    An id memory cannot look up (see `session_id_clean`) counts as none: a new session is
    minted, memory stays on. The date, retention and extra `metadata` apply only when the
    session is created; afterwards what the session was created with is read back off it.
    `timeout` is the time each round trip may take (default AGENT_MEMORY_TIMEOUT_SECONDS,
    a shopper's turn; writing past visits can allow a cold server more). Raises
    MemoryUnavailable.
    """
    conf = memory_conf()
    with outage_translated(path="session", lost="this turn's memory"):
        async with asyncio.timeout(None) as scope:
            budget = _TripBudget(scope, timeout=timeout or conf.timeout_seconds)
            try:
                return await _session_open(
                    username=username,
                    display_name=display_name,
                    session_id=session_id_clean(session_id),
                    session_date=session_date,
                    retention=retention,
                    metadata=metadata or {},
                    conf=conf,
                    budget=budget,
                )
            finally:
                budget.close()


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


async def _session_window(resource: AsyncSessionResource, *, conf: MemoryConf) -> list[Any]:
    """The newest blocks, enough for the verbatim window with room for this visit's facts."""
    window_size = conf.verbatim_window_turns * 3 + 3
    page = await resource.list_memories(limit=max(1, min(window_size, 200)), offset=0)
    return list(page.memory_blocks)


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

    # name -> (call, what is lost when it fails), in de-duplication order.
    calls: dict[str, tuple[Coroutine[Any, Any, list[Any]], str]] = {}
    if created:
        pass  # a session minted this turn holds nothing yet
    elif turn_count < conf.search_threshold_turns:
        calls["session"] = (
            _list_session(resource, cap=conf.max_session_blocks),
            "this session's recall",
        )
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
            attempted(call, timeout=conf.timeout_seconds, grace=conf.timeout_seconds * RECALL_GRACE)
            for call, _ in calls.values()
        )
    )
    return [
        _Fetched(name, lost, blocks, error)
        for (name, (_, lost)), (blocks, error) in zip(calls.items(), outcomes, strict=True)
    ]


def _recall_build(fetched: list[_Fetched], *, session_id: str, started: float) -> Recall:
    """Note each call's outcome, then de-duplicate, budget and render what came back."""
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
    counts = {name: 0 for name in ("session", "fact", "turn", "episode")}
    for item in items:
        counts[item.scope] = counts.get(item.scope, 0) + 1
    return Recall(
        items=items,
        counts=counts,
        duration_ms=round((time.perf_counter() - started) * 1000, 2),
        failed=failed,
    )


def _recall_query(message: str) -> str | None:
    return text_clean(message).strip() or None


async def memories_recall(*, memory: MemorySession, message: str, turn_count: int) -> Recall:
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
    return _recall_build(fetched, session_id=memory.session_id, started=started)


@dataclass
class EarlyRecall:
    """A recall begun for the session the client named, while that session is looked up."""

    session_id: str
    message: str
    turn_count: int
    started: float
    task: asyncio.Task[list[_Fetched]]


def recall_begin(
    *, username: str, session_id: str | None, message: str, turn_count: int
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
    resource = memory_session_async(username, session_id)
    task = asyncio.ensure_future(
        _recall_fetch(resource, query=_recall_query(message), turn_count=turn_count, created=False)
    )
    return EarlyRecall(session_id, message, turn_count, time.perf_counter(), task)


async def recall_finish(early: EarlyRecall, *, memory: MemorySession) -> Recall:
    """The turn's recall: the early one if the session it named was resumed, else afresh.

    A stale id (the session ended, or is gone) gets a new session: the early calls read the
    old one, so they are dropped unnoted and the recall runs for the new session.
    """
    if early.session_id == memory.session_id and not memory.info.created:
        return _recall_build(await early.task, session_id=memory.session_id, started=early.started)
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


async def turn_record(*, memory: MemorySession, query: str, answer: str) -> list[str]:
    """Store the exchange as one turn block; it inherits the session's retention."""
    conf = memory_conf()
    ok, response = await guarded(
        memory.resource.add_memory(
            messages=[{"user_content": text_clean(query), "assistant_content": text_clean(answer)}],
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
    query, answer = text_clean(query), text_clean(answer)
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
        return []
    return tool_items(list(found.memory_blocks), max_chars=conf.note_max_chars)


async def session_close(*, username: str, display_name: str, session_id: str) -> str | None:
    """Write the visit's episode, then end the session. Returns the episode block id.

    Nothing happens for an id that is not one of this shopper's open sessions; display_name
    is accepted like session_open's, but a close never creates a memory user.
    """
    conf = memory_conf()
    session_id = session_id_clean(session_id)
    if session_id is None:
        return None
    ok, resource = await guarded(
        _session_get_open(memory_user_async(username), session_id),
        path="write",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    if not ok or resource is None:
        return None
    info = _session_info(resource, created=False)
    ok, blocks = await guarded(
        _list_session(resource, cap=conf.max_session_blocks),
        path="read",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    turns = [
        (b.message.user_content, b.message.assistant_content)
        for b in sorted(blocks or [], key=lambda b: b.created_at or b.ingested_at)
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


# --- Staff and shopper deletions (synchronous: the admin, commands and the REST API) ------


def record_delete(*, username: str, block_id: str) -> str:
    """Delete one of the shopper's own records through its session, and tell their panels.

    Raises RecordNotFound when no such record is theirs, MemoryUnavailable on an outage.
    """
    # The SDK refuses these in a block id; refusing them here keeps that a "not found".
    if not block_id.strip() or any(ch in block_id for ch in "/?#"):
        raise RecordNotFound(block_id)
    with (
        outage_translated(path="write", lost="a record deletion"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(username)
            block = record_block_find(user, block_id)
            if block is None:
                raise RecordNotFound(block_id)
            result = user.get_session(block.session_id).delete_memory([block_id])
        except (NotFoundError, ValidationError) as exc:
            raise RecordNotFound(block_id) from exc
    if result.deleted_count < 1 or block_id in (result.failed_block_ids or []):
        raise MemoryUnavailable(f"the server did not delete {block_id}")
    memory_changed_send(
        username=username, reason="record_deleted", session_ids=[], block_id=block_id
    )
    return block_id


def shopper_memory_erase(*, username: str) -> bool:
    """Delete the shopper's Agent Memory user with everything in it, and tell their panels.

    Returns False when there was nothing to delete. Raises MemoryUnavailable, having
    changed nothing, when memory cannot be reached.
    """
    with (
        outage_translated(path="write", lost="erasing a shopper's memory"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(username)
            client.delete_user(username)
        except NotFoundError:
            return False
    _session_highest.pop(username, None)
    memory_changed_send(username=username, reason="erased", session_ids=sorted(user.sessions or []))
    return True
