"""The chat records staff browse in the admin: a ChatSession per memory session, a ChatTurn
per turn, holding ids, scores and timings, never memory text.

Live turns (`assistant.turn.pipeline`) and seeded past visits
(`assistant.records.past_visits`) both write them through these functions only, so a
seeded visit is recorded exactly as a live one.
Synchronous ORM work; the turn pipeline runs each call through `records_async`, on the
records' own thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from functools import partial
from typing import Any

from django.db import IntegrityError, close_old_connections, connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from assistant.models import ChatSession, ChatTurn
from memoryapp.public import SessionInfo

logger = logging.getLogger("assistant")

# Every refused attempt means another turn of the session took that number, so N turns
# racing need at most N attempts; tabs of one visit racing this many at once do not happen.
TURN_INDEX_ATTEMPTS = 20
# A turn record still open this long after it began belongs to a turn that will never
# finish (its process died): far past the longest turn (model rounds at MODEL_TIMEOUT_SECONDS
# each, then the writes at AGENT_MEMORY_WRITE_TIMEOUT_SECONDS).
TURN_OPEN_BOUND = timedelta(minutes=15)
INTERRUPTED = "interrupted: the shop stopped before this turn finished; nothing of it was recorded"

# The live turns' record writes run on a thread of their own, not on the one thread every
# other ORM call of the process shares (Channels' `database_sync_to_async`): there, under
# load, a turn's record writes queued behind every other shopper's catalog reads, and the
# catalog reads behind the records. One thread keeps them in the order they were asked for,
# so a turn's record is finished before the shopper's next turn reads what it acknowledged.
RECORDS_THREAD = ThreadPoolExecutor(1, thread_name_prefix="chat-records")


def records_async[**P, R](func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """`func` awaitable on the records' thread, its connection released after each call.

    Closed (or handed back to the pool) by the call itself: through Channels'
    `database_sync_to_async` on this thread, a stopped turn's last record write left its
    connection open, and PostgreSQL refused to drop the database under it. SQLite's stays
    open on this one long-lived thread (the settings keep it): there is no server to hold a
    session, and reopening it for every record write was most of what a write cost.
    """

    def released(*args: P.args, **kwargs: P.kwargs) -> R:
        close_old_connections()
        try:
            return func(*args, **kwargs)
        finally:
            if connection.vendor != "sqlite":
                connection.close()

    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(RECORDS_THREAD, partial(released, *args, **kwargs))

    return call


def chat_session_touch(*, user: Any, info: SessionInfo, retention: str | None) -> ChatSession:
    """The record of the memory session `info`, created on its first turn."""
    chat_session, _ = ChatSession.objects.get_or_create(
        shopper=user,
        memory_session_id=info.session_id,
        defaults={
            "session_date": info.session_date,
            "retention": info.retention or (retention or ""),
            "retention_seconds": info.retention_seconds,
        },
    )
    return chat_session


def turn_index_next(*, chat_session_id: int) -> int:
    """One more than the highest turn number stored (a count would reuse a deleted one)."""
    top = ChatTurn.objects.filter(session_id=chat_session_id).aggregate(top=Max("index"))["top"]
    return (top or 0) + 1


def chat_turns_interrupted_mark(
    *, older_than: timedelta | None = TURN_OPEN_BOUND, chat_session_id: int | None = None
) -> int:
    """Mark turn records that never finished as interrupted; the number marked.

    A record is opened empty when a turn starts and finished when it ends, stopped or failed
    alike (a live turn's with its timings, a seeded one's with its saved ids); one still
    empty was cut by a crash. `older_than` None marks
    every open record: only when no turn can be running (the start of a single-process
    shop, as `make run`).
    """
    turns = ChatTurn.objects.filter(timings={}, saved={}, error="", stopped=False)
    if chat_session_id is not None:
        turns = turns.filter(session_id=chat_session_id)
    if older_than is not None:
        turns = turns.filter(created_at__lt=timezone.now() - older_than)
    return turns.update(error=INTERRUPTED, timings={"interrupted": True})


def chat_turn_open(*, chat_session: ChatSession, model: str) -> ChatTurn | None:
    """Create the turn's chat record under the next free number.

    Two turns of one session (two tabs) can read the same next number; the unique
    (session, index) constraint refuses the second, which reads again. The record is
    bookkeeping: if it still cannot be made, the turn goes on without one.
    """
    chat_turns_interrupted_mark(chat_session_id=chat_session.pk)
    for _ in range(TURN_INDEX_ATTEMPTS):
        index = turn_index_next(chat_session_id=chat_session.pk)
        try:
            with transaction.atomic():
                turn = ChatTurn.objects.create(session=chat_session, index=index, model=model)
        except IntegrityError:
            continue
        ChatSession.objects.filter(pk=chat_session.pk).update(turn_count=F("turn_count") + 1)
        return turn
    logger.warning("No chat record for a turn of %s: its number kept being taken", chat_session)
    return None


def chat_turn_begin(
    *, user: Any, info: SessionInfo, retention: str | None, model: str
) -> ChatTurn | None:
    """A live turn's record, in its session's (created on the session's first turn)."""
    chat_session = chat_session_touch(user=user, info=info, retention=retention)
    return chat_turn_open(chat_session=chat_session, model=model)


def chat_turn_finish(
    *,
    turn_id: int,
    saved: dict[str, list[str]],
    recalled: Sequence[dict[str, Any]] = (),
    timings: dict[str, Any] | None = None,
    tools: Sequence[dict[str, Any]] = (),
    error: str = "",
    stopped: bool = False,
) -> None:
    """What the turn recalled and saved, how long it took, and how it ended."""
    ChatTurn.objects.filter(pk=turn_id).update(
        recalled=list(recalled),
        saved=saved,
        timings=timings or {},
        tools=list(tools),
        error=error[:300],
        stopped=stopped,
    )


def chat_session_closed(*, user: Any, session_id: str, note: str = "") -> None:
    """Memory ended the session: the record says when, and how (`note`)."""
    now = timezone.now()
    records = ChatSession.objects.filter(
        shopper=user, memory_session_id=session_id, closed_at__isnull=True
    )
    records.filter(close_requested_at__isnull=True).update(close_requested_at=now)
    records.update(closed_at=now, close_note=note[:300])


def chat_session_close_pending(*, user: Any, session_id: str, note: str) -> None:
    """The shopper closed the visit but memory could not end it: pending, to be retried."""
    records = ChatSession.objects.filter(
        shopper=user, memory_session_id=session_id, closed_at__isnull=True
    )
    records.filter(close_requested_at__isnull=True).update(close_requested_at=timezone.now())
    records.update(close_note=note[:300])


def chat_session_close_resumed(*, user: Any, session_id: str) -> None:
    """The shopper came back to a visit whose close was pending: it goes on, not closed."""
    ChatSession.objects.filter(
        shopper=user,
        memory_session_id=session_id,
        close_requested_at__isnull=False,
        closed_at__isnull=True,
    ).update(
        close_requested_at=None,
        close_note=f"resumed {timezone.now():%Y-%m-%d %H:%M} UTC after a close that could not "
        "reach memory",
    )


def chat_sessions_close_pending(*, user: Any, exclude: str | None = None) -> list[str]:
    """The shopper's visits whose close is still pending, oldest first."""
    pending = ChatSession.objects.filter(
        shopper=user, close_requested_at__isnull=False, closed_at__isnull=True
    ).order_by("close_requested_at")
    if exclude:
        pending = pending.exclude(memory_session_id=exclude)
    return list(pending.values_list("memory_session_id", flat=True)[:10])


def chat_session_discard(*, user: Any, session_id: str) -> None:
    """Remove the record of a memory session that was given up before it was complete."""
    ChatSession.objects.filter(shopper=user, memory_session_id=session_id).delete()


def chat_turns_unacknowledged(*, turn_id: int, last: int = 10) -> list[int]:
    """Earlier turns of this turn's visit whose exchange memory never acknowledged: finished
    (or interrupted) records with no turn block saved, not stopped by the shopper."""
    turn = ChatTurn.objects.filter(pk=turn_id).only("session_id").first()
    if turn is None:
        return []
    earlier = ChatTurn.objects.filter(session_id=turn.session_id, pk__lt=turn_id, stopped=False)
    return [
        t.pk
        for t in earlier.order_by("-pk")[:last]
        if t.timings and not (t.saved or {}).get("turn")
    ]


def chat_turn_saved_late(*, turn_id: int, saved: dict[str, list[str]]) -> None:
    """A write memory kept though its answer was lost: the record lists it now, and says so."""
    turn = ChatTurn.objects.filter(pk=turn_id).first()
    if turn is None:
        return
    merged = {
        kind: sorted({*(turn.saved or {}).get(kind, []), *ids}) for kind, ids in saved.items()
    }
    note = "saved late: memory kept this write after its answer was lost (recognised by its key)"
    # A write found now is no longer a failed one ("turn" and "facts" in `failed`).
    found = {"turn" if kind == "turn" else "facts" for kind, ids in saved.items() if ids}
    failed = [name for name in (turn.saved or {}).get("failed", []) if name not in found]
    ChatTurn.objects.filter(pk=turn_id).update(
        saved={**(turn.saved or {}), **merged, "failed": failed},
        error=(f"{turn.error}; {note}" if turn.error else note)[:300],
    )


def facts_acknowledged(*, user: Any, last: int = 2000) -> frozenset[str]:
    """Ids of the facts the shopper was told were saved (their turns' `memory.added`)."""
    saved = ChatTurn.objects.filter(session__shopper=user).order_by("-pk")[:last]
    return frozenset(
        block_id
        for record in saved.values_list("saved", flat=True)
        if isinstance(record, dict)
        for block_id in record.get("fact") or []
        if isinstance(block_id, str)
    )


_turn_begin = records_async(chat_turn_begin)
_turn_finish = records_async(chat_turn_finish)
_facts_acknowledged = records_async(facts_acknowledged)


class TurnRecord:
    """A live turn's record, written on the records' thread beside the turn's recall and
    answer rather than before them.

    Made as the turn's session opens: the record is opened, and the facts the shopper was
    told were saved are read (after the shopper's earlier turns' records are finished: the
    same thread, in order). Only `done`, which carries the record's id, waits for it.
    """

    def __init__(self, *, user: Any, info: SessionInfo, retention: str | None, model: str):
        self._opened = asyncio.ensure_future(
            _turn_begin(user=user, info=info, retention=retention, model=model)
        )
        self._acknowledged = asyncio.ensure_future(_facts_acknowledged(user=user))

    async def turn_id(self) -> int | None:
        # Shielded: a turn stopped meanwhile still finishes its record when it ends.
        opened = await asyncio.shield(self._opened)
        return opened.pk if opened else None

    async def acknowledged(self) -> frozenset[str]:
        return await self._acknowledged

    async def finish(self, **fields: Any) -> int | None:
        """Write how the turn ended (`chat_turn_finish`'s fields); the record's id."""
        self._acknowledged.cancel()  # unread when the turn ended before its writes
        opened = await self._opened
        if opened is not None:
            await _turn_finish(turn_id=opened.pk, **fields)
        return opened.pk if opened else None
