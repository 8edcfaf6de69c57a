"""Memory and the chat records agree after an outage at close.

A close that cannot reach memory leaves the memory session open and the chat record says
the close is pending (not closed); the shopper's next healthy turn or close ends that
session, writes its summary once, and the record says it was closed late.
"""

from __future__ import annotations

import pytest

from assistant.models import ChatSession
from memoryapp.clients import memory_client_async
from memoryapp.guard import outages
from tests.support.chat import Chat, session_cookie_for
from tests.support.shopper_memory import memory_user_of_async

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
DEAD = "http://127.0.0.1:9"


@pytest.fixture
def tess(shopper_name, django_db_blocker):
    from shop.services import shopper_get_or_create

    username = shopper_name[:30].rstrip("-")
    with django_db_blocker.unblock():
        shopper_get_or_create(username=username, display_name="Tess")
        cookie = session_cookie_for(username)
    return username, cookie


async def memory_session(username: str, session_id: str):
    user = await memory_client_async().get_user(await memory_user_of_async(username))
    session = await user.get_session(session_id)
    blocks = (await session.list_memories(limit=50)).memory_blocks
    episodes = [b for b in blocks if (b.annotations or {}).get("type") == "episode"]
    return session, episodes


async def closed(chat: Chat, session_id: str) -> dict:
    await chat.send({"type": "close", "session_id": session_id})
    return (await chat.events_until("closed"))[-1]


@pytest.mark.parametrize("retried_by", ["turn", "close"])
async def test_a_close_during_an_outage_is_pending_then_retried(
    live_memory, tess, settings, retried_by
):
    username, cookie = tess
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I'm a size M, show me rain jackets")
        visit = first[0]["session_id"]

        settings.AGENT_MEMORY_URL = DEAD
        answer = await closed(chat, visit)
        assert answer["episode_block_id"] is None
        record = await ChatSession.objects.aget(shopper__username=username, memory_session_id=visit)
        assert record.closed_at is None and record.close_requested_at is not None
        assert record.close_note.startswith("close pending since")

        settings.AGENT_MEMORY_URL = live_memory.base_url
        outages.reset()
        session, episodes = await memory_session(username, visit)
        assert session.end_time is None and episodes == []  # memory: still open, no summary

        if retried_by == "turn":
            # The next visit: a new session, whose first healthy turn ends the stale one.
            second = await chat.turn("and boots?")
            assert second[0]["session_id"] != visit
        else:
            # The panel closed again (another tab, or the next close): it ends the visit now.
            answer = await closed(chat, visit)
            assert answer["episode_block_id"]

    session, episodes = await memory_session(username, visit)
    assert session.end_time is not None and len(episodes) == 1
    record = await ChatSession.objects.aget(shopper__username=username, memory_session_id=visit)
    assert record.closed_at is not None
    assert record.close_note.startswith("closed late" if retried_by == "turn" else "closed ")
    assert episodes[0].block_id in record.close_note
    assert "session ended" in record.close_note


async def test_coming_back_to_a_visit_whose_close_was_pending_resumes_it(
    live_memory, tess, settings
):
    username, cookie = tess
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("show me sandals")
        visit = first[0]["session_id"]
        settings.AGENT_MEMORY_URL = DEAD
        await closed(chat, visit)
        settings.AGENT_MEMORY_URL = live_memory.base_url
        outages.reset()
        again = await chat.turn("any in black?", session_id=visit, turn_count=1)
    assert again[0]["session_id"] == visit and again[0]["created"] is False
    session, episodes = await memory_session(username, visit)
    assert session.end_time is None and episodes == []  # the visit goes on
    record = await ChatSession.objects.aget(shopper__username=username, memory_session_id=visit)
    assert record.closed_at is None and record.close_requested_at is None
    assert record.close_note.startswith("resumed")


async def test_a_close_is_written_once_however_often_it_is_retried(live_memory, tess):
    from memoryapp.episodes import session_end

    username, cookie = tess
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("show me boots")
    visit = first[0]["session_id"]
    done = await session_end(
        user_id=await memory_user_of_async(username), display_name="Tess", session_id=visit
    )
    again = await session_end(
        user_id=await memory_user_of_async(username), display_name="Tess", session_id=visit
    )
    assert done.ended and done.episode_block_id and again.reached and not again.ended
    _, episodes = await memory_session(username, visit)
    assert [e.block_id for e in episodes] == [done.episode_block_id]
