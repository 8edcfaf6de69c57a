"""Chat records: turns of one session racing for the next number each get their own."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection

from assistant.models import ChatSession, ChatTurn
from assistant.records import chat_records

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 6


def test_concurrent_turns_of_one_session_get_distinct_numbers(monkeypatch):
    chat_session = ChatSession.objects.create(
        shopper=get_user_model().objects.get(username="ann"), memory_session_id="session1"
    )
    # Every racer reads the next number before any of them writes: the race, every time.
    barrier = threading.Barrier(RACERS)
    raced = threading.local()
    real_next = chat_records.turn_index_next

    def next_after_everyone_read(*, chat_session_id: int) -> int:
        number = real_next(chat_session_id=chat_session_id)
        if not getattr(raced, "done", False):
            raced.done = True
            barrier.wait(timeout=30)
        return number

    monkeypatch.setattr(chat_records, "turn_index_next", next_after_everyone_read)

    def record(_: int) -> int | None:
        try:
            turn = chat_records.chat_turn_open(chat_session=chat_session, model="m")
            return turn.index if turn else None
        finally:
            connection.close()

    with ThreadPoolExecutor(RACERS) as pool:
        numbers = list(pool.map(record, range(RACERS)))
    assert sorted(numbers) == list(range(1, RACERS + 1))
    assert ChatTurn.objects.filter(session=chat_session).count() == RACERS
    chat_session.refresh_from_db()
    assert chat_session.turn_count == RACERS


def test_one_session_cannot_hold_two_turns_with_one_number():
    chat_session = ChatSession.objects.create(
        shopper=get_user_model().objects.get(username="ann"), memory_session_id="session1"
    )
    ChatTurn.objects.create(session=chat_session, index=1)
    with pytest.raises(IntegrityError):
        ChatTurn.objects.create(session=chat_session, index=1)


def test_a_deleted_turn_number_is_not_reused():
    chat_session = ChatSession.objects.create(
        shopper=get_user_model().objects.get(username="ann"), memory_session_id="session1"
    )
    for _ in range(3):
        chat_records.chat_turn_open(chat_session=chat_session, model="m")
    ChatTurn.objects.filter(session=chat_session, index=2).delete()
    assert chat_records.chat_turn_open(chat_session=chat_session, model="m").index == 4
