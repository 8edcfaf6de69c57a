"""Turn records cut by a crash are marked interrupted: at the start of a single-process shop
(`make run`), and by the next turn of the visit once one has stayed open past the bound.
Finished, stopped and seeded turns are never touched. (A real crash: tests/fault/test_shop_crash.py.)"""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from assistant.models import ChatSession, ChatTurn
from assistant.records.chat_records import (
    INTERRUPTED,
    TURN_OPEN_BOUND,
    chat_turn_finish,
    chat_turn_open,
)
from shop.services import shopper_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat_session():
    user = shopper_get_or_create(username="crash-visit")
    return ChatSession.objects.create(shopper=user, memory_session_id="session1")


def turns(chat_session) -> dict[int, str]:
    return dict(chat_session.turns.values_list("index", "error"))


def test_the_next_turn_marks_a_turn_left_open_past_the_bound(chat_session):
    cut = chat_turn_open(chat_session=chat_session, model="m")
    ChatTurn.objects.filter(pk=cut.pk).update(
        created_at=timezone.now() - TURN_OPEN_BOUND - timedelta(seconds=1)
    )
    running = chat_turn_open(chat_session=chat_session, model="m")  # another tab, just begun
    finished = chat_turn_open(chat_session=chat_session, model="m")
    chat_turn_finish(turn_id=finished.pk, saved={}, timings={"spans": [], "total_ms": 3.0})
    ChatTurn.objects.filter(pk__in=[running.pk, finished.pk]).update(
        created_at=timezone.now() - TURN_OPEN_BOUND - timedelta(seconds=1)
    )
    ChatTurn.objects.filter(pk=running.pk).update(created_at=timezone.now())

    chat_turn_open(chat_session=chat_session, model="m")
    assert turns(chat_session) == {1: INTERRUPTED, 2: "", 3: "", 4: ""}


def test_make_runs_start_marks_every_open_turn_and_only_those(chat_session):
    cut = chat_turn_open(chat_session=chat_session, model="m")
    stopped = chat_turn_open(chat_session=chat_session, model="m")
    chat_turn_finish(turn_id=stopped.pk, saved={}, timings={"total_ms": 1.0}, stopped=True)
    seeded = chat_turn_open(chat_session=chat_session, model="seed")
    chat_turn_finish(turn_id=seeded.pk, saved={"turn": ["b1"], "fact": []})

    out = StringIO()
    call_command("mark_interrupted_turns", stdout=out)  # the bound: nothing is old enough
    assert turns(chat_session)[cut.index] == ""
    call_command("mark_interrupted_turns", "--at-start", stdout=out)
    assert turns(chat_session) == {1: INTERRUPTED, 2: "", 3: ""}
    assert "1 turn(s) cut by a stop marked interrupted." in out.getvalue()
