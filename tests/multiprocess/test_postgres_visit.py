"""Two daphne processes on one PostgreSQL serve one shopper's visit, turn by turn in turn.

Behind a load balancer a shopper's reconnecting panel lands on any process. The visit lives
in PostgreSQL (the ChatSession and its turns) and in the memory server (the session and
its blocks), so alternating processes must still make one visit: one session id, one
memory session, one ChatSession with its turns numbered in order.
"""

from __future__ import annotations

import asyncio
import secrets

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from assistant.models import ChatSession
from harness.daphne import daphne_start
from memoryapp.clients import memory_client_sync
from shop.services import shopper_get_or_create
from tests.support.chat import session_cookie_for
from tests.support.live_chat import event, live_turn
from tests.support.shopper_memory import memory_user_of

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

MESSAGES = [
    "I'm a size M, show me jeans",
    "any in black?",
    "and a white t-shirt to go with them",
    "which of those was cheapest?",
]


@database_sync_to_async
def _records_once(user) -> dict[str, list[int]]:
    return {
        chat.memory_session_id: sorted(turn.index for turn in chat.turns.all())
        for chat in ChatSession.objects.filter(shopper=user).prefetch_related("turns")
        if chat.turn_count == chat.turns.count()
    }


async def _chat_records(user, *, expected_turns: int) -> dict[str, list[int]]:
    for _ in range(100):
        records = await _records_once(user)
        if sum(len(indexes) for indexes in records.values()) >= expected_turns:
            break
        await asyncio.sleep(0.1)
    return records


@pytest.fixture
def two_shops(live_memory, tmp_path):
    """Two daphne processes on this test's PostgreSQL database and the live memory server."""
    database = settings.DATABASES["default"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    env = {
        # The test database pytest-django created on the pass's PostgreSQL server.
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
        f"{database['NAME']}",
        "AGENT_MEMORY_URL": live_memory.base_url,
        "AGENT_MEMORY_TOKEN": "",
        "AISLE_VAR_DIR": str(tmp_path),
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
    }
    shops = [daphne_start("config.asgi:application", env=env, log_dir=tmp_path) for _ in "AB"]
    yield shops
    for shop in shops:
        shop.stop()


async def test_alternating_processes_serve_one_visit(two_shops):
    shop_a, shop_b = two_shops
    username = f"pg-{secrets.token_hex(4)}"
    user = await database_sync_to_async(shopper_get_or_create)(username=username)
    cookie = (await database_sync_to_async(session_cookie_for)(username)).decode()

    session_id = None
    turns = []
    for number, text in enumerate(MESSAGES):
        shop = (shop_a, shop_b)[number % 2]  # turns 1 and 3 on A, 2 and 4 on B
        events = await live_turn(
            ws_url=shop.ws_url("/ws/assistant/"),
            origin=shop.origin,
            cookie=cookie,
            text=text,
            session_id=session_id,
            turn_count=number,
        )
        session = event(events, "session")
        assert session["mode"] == "remembering", (session, shop.log_tail())
        assert session["created"] is (number == 0)
        session_id = session_id or session["session_id"]
        assert session["session_id"] == session_id
        assert event(events, "done")["text"]
        turns.append(events)

    # The last turn, on B, recalled the three exchanges A and B wrote before it.
    assert event(turns[-1], "memory.searched")["counts"]["session"] >= 3

    # The chat record of a turn is written just after its last event: wait for the fourth.
    records = await _chat_records(user, expected_turns=4)
    assert records == {session_id: [1, 2, 3, 4]}

    def memory_sessions() -> tuple[list[str], set[str]]:
        with memory_client_sync() as client:
            shopper = client.get_user(memory_user_of(username))
            ids = [s.session_id for s in shopper.list_sessions().sessions]
            blocks = shopper.list_memories(limit=100).memory_blocks
        return ids, {b.session_id for b in blocks}

    ids, block_sessions = await asyncio.to_thread(memory_sessions)
    assert ids == [session_id] and block_sessions == {session_id}
    written = [b for events in turns for b in event(events, "memory.added")["block_ids"]["turn"]]
    assert len(written) == 4
