"""The chat records staff browse in the admin: a ChatSession per memory session, a ChatTurn
per turn, holding ids, scores and timings, never memory text.

Live turns (`assistant.services`) and seeded past visits (`assistant.history`) both write
them through these functions only, so a seeded visit is recorded exactly as a live one.
Synchronous ORM work; the turn pipeline runs each call through `database_sync_to_async`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from assistant.models import ChatSession, ChatTurn
from memoryapp.public import SessionInfo

logger = logging.getLogger("assistant")

# Every refused attempt means another turn of the session took that number, so N turns
# racing need at most N attempts; tabs of one visit racing this many at once do not happen.
TURN_INDEX_ATTEMPTS = 20


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


def chat_turn_open(*, chat_session: ChatSession, model: str) -> ChatTurn | None:
    """Create the turn's chat record under the next free number.

    Two turns of one session (two tabs) can read the same next number; the unique
    (session, index) constraint refuses the second, which reads again. The record is
    bookkeeping: if it still cannot be made, the turn goes on without one.
    """
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


def chat_session_closed(*, user: Any, session_id: str) -> None:
    ChatSession.objects.filter(
        shopper=user, memory_session_id=session_id, closed_at__isnull=True
    ).update(closed_at=timezone.now())


def chat_session_discard(*, user: Any, session_id: str) -> None:
    """Remove the record of a memory session that was given up before it was complete."""
    ChatSession.objects.filter(shopper=user, memory_session_id=session_id).delete()
