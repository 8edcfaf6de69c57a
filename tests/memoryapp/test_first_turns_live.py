"""Several tabs of one shopper sending their first message at once, through the whole stack."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from assistant.models import ChatSession
from memoryapp.clients import memory_client_async
from tests.support.chat import Chat, session_cookie_for
from tests.support.shopper_memory import memory_user_of_async

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cookie(shopper_name, django_db_blocker):
    from shop.services import shopper_get_or_create

    username = shopper_name[:30].rstrip("-")
    with django_db_blocker.unblock():
        shopper_get_or_create(username=username, display_name="Tabby")
        return username, session_cookie_for(username)


async def test_ten_first_turns_at_once_all_remember_in_ten_sessions(live_memory, cookie, settings):
    username, session_cookie = cookie
    # The race between the tabs is under test, not the time bound on a shared machine (the
    # bound under load is measured by benchmarks/turn_overhead.py).
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 10

    async def first_turn(tab: int) -> dict:
        async with Chat(cookie=session_cookie) as chat:
            events = await chat.turn(f"show me black jeans, tab {tab}", timeout=60, until=("done",))
            session = next(e for e in events if e["type"] == "session")
            if session["mode"] == "remembering":
                await chat.events_until("memory.added", "error", timeout=60)
        return session

    sessions = await asyncio.gather(*(first_turn(tab) for tab in range(10)))

    assert [s["mode"] for s in sessions] == ["remembering"] * 10
    ids = {s["session_id"] for s in sessions}
    assert ids == {f"session{n}" for n in range(1, 11)}
    user = await memory_client_async().get_user(await memory_user_of_async(username))
    assert set(user.sessions) == ids
    records = await sync_to_async(
        lambda: set(
            ChatSession.objects.filter(shopper__username=username).values_list(
                "memory_session_id", flat=True
            )
        )
    )()
    assert records == ids
