"""A turn's chat record is written beside its recall and answer, on a thread of its own.

The record writes once waited for the one thread every ORM call of the process shares,
before the recall was even read: under load the shopper's answer, and the recall's
reported duration, waited with them. Here the records' thread is held: the turn still
recalls and answers, and only `done`, which carries the record's id, waits for it.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.utils import timezone

from assistant.models import ChatTurn
from assistant.records.chat_records import RECORDS_THREAD
from tests.support.chat import Chat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_turn_recalls_and_answers_while_its_record_waits(live_memory, shopper):
    _username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("show me jeans")
        session_id = first[0]["session_id"]
        await _finished(first)  # the first turn's record written, its turn over
        release = threading.Event()
        RECORDS_THREAD.submit(release.wait, 30)
        held = time.perf_counter()
        answering = await chat.turn(
            "and in black?", session_id=session_id, turn_count=1, until=("token",)
        )
        # Recalled and answering, the records' thread still held.
        held_ms = (time.perf_counter() - held) * 1000
        released_at = timezone.now()
        release.set()
        rest = await chat.events_until("memory.added", "error")
    searched = next(e for e in answering if e["type"] == "memory.searched")
    assert searched["failed"] == [] and searched["counts"]["session"] >= 1
    done = next(e for e in rest if e["type"] == "done")
    assert rest[-1]["type"] == "memory.added" and rest[-1]["block_ids"]["turn"]
    record = await ChatTurn.objects.aget(pk=done["turn_id"])
    # Written on the records' own thread once it was free, not on the shared one.
    assert record.index == 2 and record.created_at >= released_at
    assert searched["duration_ms"] < held_ms


async def _finished(events: list[dict]) -> None:
    done = next(e for e in events if e["type"] == "done")
    for _ in range(200):
        if (await ChatTurn.objects.aget(pk=done["turn_id"])).timings:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the first turn's record was never finished")
