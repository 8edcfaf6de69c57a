"""Memory and the chat records agree: closes that could not reach memory, and writes memory
kept although their answers were lost, are settled once memory answers again.

A close that cannot reach memory leaves the memory session open and its chat record
pending (`close_requested_at` set, `closed_at` empty); the shopper's next healthy turn or
close ends it with its summary and the record says so. A turn's blocks carry its chat
turn's id as their idempotency key: the visit's next healthy turn looks up the keys of the
turns reported as not saved and lists what memory kept. docs/reliability.md has the rules.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.utils import timezone

from assistant.records.chat_records import (
    chat_session_close_pending,
    chat_session_close_resumed,
    chat_session_closed,
    chat_sessions_close_pending,
    chat_turn_saved_late,
    chat_turns_unacknowledged,
)
from memoryapp.public import CloseOutcome, ShopperMemory, TurnMemory

_chat_session_closed = database_sync_to_async(chat_session_closed)
_chat_session_close_pending = database_sync_to_async(chat_session_close_pending)
_chat_session_close_resumed = database_sync_to_async(chat_session_close_resumed)
_chat_sessions_close_pending = database_sync_to_async(chat_sessions_close_pending)
_chat_turns_unacknowledged = database_sync_to_async(chat_turns_unacknowledged)
_chat_turn_saved_late = database_sync_to_async(chat_turn_saved_late)


def _close_note(outcome: CloseOutcome, *, late: bool) -> str:
    when = timezone.now().strftime("%Y-%m-%d %H:%M UTC")
    if not outcome.reached:
        return (
            f"close pending since {when}: memory could not be reached, the session is still "
            "open there; it is ended, with its summary, on the shopper's next healthy turn "
            "or close"
        )
    prefix = f"closed late, {when}, on a later turn or close" if late else f"closed {when}"
    if not outcome.ended:
        return f"{prefix}: memory had already ended this session (or no longer holds it)"
    if outcome.episode_block_id:
        written = "found from an earlier try" if outcome.episode_existed else "written"
        return f"{prefix}: summary {outcome.episode_block_id} {written}, session ended"
    return f"{prefix}: nothing to summarise, session ended"


async def visit_close(*, user, shopper: str, session_id: str, late: bool = False) -> CloseOutcome:
    """End one visit in memory and say in its chat record what happened."""
    outcome = await ShopperMemory(account=user).visit_close(
        display_name=shopper, session_id=session_id
    )
    note = _close_note(outcome, late=late)
    if not outcome.reached:
        await _chat_session_close_pending(user=user, session_id=session_id, note=note)
        return outcome
    await _chat_session_closed(user=user, session_id=session_id, note=note)
    if not late:  # memory answers: the visits whose close could not reach it end now too
        await closes_pending_retry(user=user, shopper=shopper, current=None)
    return outcome


async def writes_recognised(*, memory: TurnMemory, turn_id: int) -> None:
    """Earlier turns of the visit reported as not saved whose blocks memory kept anyway (a
    write that landed after its timeout): found by their key, listed in their records."""
    for earlier in await _chat_turns_unacknowledged(turn_id=turn_id):
        found = await memory.written_under(str(earlier))
        if found.turn:
            await _chat_turn_saved_late(turn_id=earlier, saved=found.as_dict())


async def closes_pending_retry(*, user, shopper: str, current: str | None) -> None:
    """Retry the shopper's closes that could not reach memory, now that it answers.

    A visit the shopper came back to (`current`, the session this turn runs in) is not
    closed: it goes on, and its record says so.
    """
    if current:
        await _chat_session_close_resumed(user=user, session_id=current)
    for session_id in await _chat_sessions_close_pending(user=user, exclude=current):
        outcome = await visit_close(user=user, shopper=shopper, session_id=session_id, late=True)
        if not outcome.reached:
            return  # memory is failing again: the rest wait for the next try


async def healthy_turn_reconcile(
    *, user, shopper: str | None, memory: TurnMemory, turn_id: int | None
) -> None:
    """After a turn memory wrote: end the shopper's pending closes (not this visit's: it
    goes on) and recognise this visit's writes that memory kept after their answers."""
    await closes_pending_retry(
        user=user, shopper=shopper or user.username, current=memory.session_id
    )
    if turn_id is not None:
        await writes_recognised(memory=memory, turn_id=turn_id)
