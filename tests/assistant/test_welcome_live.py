"""hello → welcome for signed-in shoppers, against the live embedded memory server."""

from __future__ import annotations

import pytest
from agentmemory.exceptions import NotFoundError

from assistant.models import DemoSettings
from memoryapp.clients import memory_client_async
from tests.support.chat import Chat
from tests.support.shopper_memory import memory_user_of_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ON_A_TEE_PAGE = {"kind": "product", "sku": "TS-0001"}  # sizes in stock: XS, S, XL, XXL
ON_JEANS_PAGE = {"kind": "product", "sku": "JN-0043"}  # M in stock


async def _hello(chat: Chat, page: dict | None = None) -> dict:
    await chat.send({"type": "hello", "page": page})
    (welcome,) = await chat.events_until("welcome")
    return welcome


async def test_a_returning_shopper_is_welcomed_back_with_suggestions_from_their_facts(
    live_memory, shopper
):
    _username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I'm a size M and I hate yellow, show me jeans")
        assert first[-1]["facts"]  # the offline judge kept the size and the dislike
        await chat.send({"type": "close", "session_id": first[0]["session_id"]})
        await chat.events_until("closed")
        welcome = await _hello(chat)
        on_page = await _hello(chat, ON_JEANS_PAGE)
    assert welcome["mode"] == "remembering"
    assert welcome["greeting"].startswith("Welcome back, Tess")
    assert len(welcome["suggestions"]) == 3
    assert "Show me jeans in M" in welcome["suggestions"]
    assert "T-shirts, but nothing yellow" in welcome["suggestions"]
    assert on_page["suggestions"][0] == "Do you have this in M?"
    assert len(on_page["suggestions"]) == 3


async def test_of_two_sizes_stated_the_greeting_suggests_the_later_one(live_memory, shopper):
    username, cookie = shopper
    client = memory_client_async()
    user = await client.create_user(await memory_user_of_async(username), "Tess")
    # Two sizes stated on two visits (as stored before facts were consolidated), the later
    # one written first: what counts is when the shopper said it.
    for session_id, sentence, said in (
        ("session2", "The shopper wears size L.", "2026-06-01T10:00:00+00:00"),
        ("session1", "The shopper wears size M.", "2026-01-10T10:00:00+00:00"),
    ):
        session = await user.create_session(session_id)
        await session.add_memory(
            facts=[sentence], annotations={"type": "fact"}, context_required=False, created_at=said
        )
    async with Chat(cookie=cookie) as chat:
        welcome = await _hello(chat)
    assert welcome["greeting"].startswith("Welcome back, Tess")
    assert "Show me jeans in L" in welcome["suggestions"]
    assert not any(" in M" in suggestion for suggestion in welcome["suggestions"])


async def test_a_first_visit_gets_a_plain_greeting_and_hello_writes_nothing(live_memory, shopper):
    username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        welcome = await _hello(chat, ON_A_TEE_PAGE)
    assert welcome["mode"] == "remembering"
    assert welcome["greeting"].startswith("Hi Tess") and "back" not in welcome["greeting"]
    assert welcome["suggestions"][0] == "Which sizes does this come in?"
    assert len(welcome["suggestions"]) == 3
    with pytest.raises(NotFoundError):  # reading memory created nothing
        await memory_client_async().get_user(await memory_user_of_async(username))


async def test_memory_down_gives_the_plain_greeting(shopper, memory_down):
    _username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        welcome = await _hello(chat)
    assert welcome["mode"] == "memory_unavailable"
    assert welcome["greeting"].startswith("Hi Tess") and len(welcome["suggestions"]) == 3


async def test_a_failed_fact_search_gives_the_plain_greeting(memory_proxy, shopper):
    _username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I'm a size M, show me jeans")
        memory_proxy.failing = lambda method, path, body: path.endswith("/memory/search")
        welcome = await _hello(chat)
    assert first[-1]["type"] == "memory.added"
    assert welcome["mode"] == "memory_unavailable"
    assert "Welcome back" not in welcome["greeting"]
    assert "Show me jeans in M" not in welcome["suggestions"]


async def test_memory_off_reads_nothing(live_memory, shopper):
    _username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        await chat.turn("I'm a size M")
        await DemoSettings.objects.aupdate_or_create(pk=1, defaults={"memory_enabled": False})
        # The open panel hears staff's switch at once, before it says anything.
        (changed,) = await chat.events_until("mode.changed")
        assert changed == {"type": "mode.changed", "mode": "memory_off"}
        welcome = await _hello(chat)
    assert welcome["mode"] == "memory_off"
    assert not welcome["greeting"].startswith("Welcome back")
    assert "Show me jeans in M" not in welcome["suggestions"]
