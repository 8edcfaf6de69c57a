"""Memory belongs to the account, not to its name: a name taken again after its account was
deleted finds nothing of the earlier person, a renamed account keeps its own, and a
deleted account's memory that could not be erased at once stays marked until it is."""

from __future__ import annotations

import pytest
from agentmemory.exceptions import NotFoundError
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from memoryapp.clients import memory_client_async
from memoryapp.models import MemoryErasure
from tests.support.chat import Chat
from tests.support.shopper_memory import memory_user_of_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

STATED = "I'm a size M and I hate yellow, show me jeans"
DEAD_MEMORY = "http://127.0.0.1:9"  # nothing listens on the discard port


def _demo_sign_in(username: str) -> bytes:
    """Sign in through the demo sign-in page, as anyone can; the socket's cookie."""
    client = Client()
    response = client.post("/signin/", {"username": username})
    assert response.status_code == 302, response.content
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _visit_stating_a_size(cookie: bytes) -> None:
    async with Chat(cookie=cookie) as chat:
        events = await chat.turn(STATED)
        assert events[-1]["facts"] == ["The shopper wears size M.", "The shopper dislikes yellow."]
        await chat.send({"type": "close", "session_id": events[0]["session_id"]})
        await chat.events_until("closed")


async def _what_is_remembered(cookie: bytes) -> tuple[dict, dict, dict]:
    """The welcome, then what a turn asking for the shopper's size recalled and answered."""
    async with Chat(cookie=cookie) as chat:
        await chat.send({"type": "hello"})
        (welcome,) = await chat.events_until("welcome")
        events = await chat.turn("what size am I?")
    searched = next(e for e in events if e["type"] == "memory.searched")
    done = next(e for e in events if e["type"] == "done")
    return welcome, searched, done


async def _delete_account(username: str) -> None:
    await get_user_model().objects.filter(username=username).adelete()


async def _memory_user_gone(user_id: str) -> bool:
    try:
        await memory_client_async().get_user(user_id)
    except NotFoundError:
        return True
    return False


async def test_a_deleted_accounts_name_taken_again_finds_none_of_its_memory(
    live_memory, shopper_name, settings
):
    name = shopper_name[:30].rstrip("-")
    await _visit_stating_a_size(await sync_to_async(_demo_sign_in)(name))
    earlier = await memory_user_of_async(name)
    # Memory cannot be reached as staff delete the account: the earlier person's memory is
    # still on the server when the name is taken again.
    settings.AGENT_MEMORY_URL = DEAD_MEMORY
    await _delete_account(name)
    settings.AGENT_MEMORY_URL = live_memory.base_url
    assert not await _memory_user_gone(earlier)

    welcome, searched, done = await _what_is_remembered(await sync_to_async(_demo_sign_in)(name))
    assert welcome["greeting"].startswith("Hi ") and "Welcome back" not in welcome["greeting"]
    assert searched["counts"]["fact"] == 0 and searched["items"] == []
    assert "size M" not in done["text"] and "yellow" not in done["text"]
    assert await memory_user_of_async(name) != earlier


async def test_deleting_an_account_erases_its_memory_and_chat_records(live_memory, shopper_name):
    from assistant.models import ChatSession

    name = shopper_name[:30].rstrip("-")
    await _visit_stating_a_size(await sync_to_async(_demo_sign_in)(name))
    memory_user = await memory_user_of_async(name)
    assert await ChatSession.objects.filter(shopper__username=name).aexists()

    await _delete_account(name)

    assert await _memory_user_gone(memory_user)
    assert not await MemoryErasure.objects.aexists()
    assert (
        not await ChatSession.objects.filter(memory_session_id__isnull=False)
        .filter(shopper__username=name)
        .aexists()
    )


async def test_an_erasure_memory_could_not_make_stays_marked_until_a_retry_makes_it(
    live_memory, shopper_name, settings
):
    name = shopper_name[:30].rstrip("-")
    await _visit_stating_a_size(await sync_to_async(_demo_sign_in)(name))
    memory_user = await memory_user_of_async(name)

    settings.AGENT_MEMORY_URL = DEAD_MEMORY
    await _delete_account(name)
    mark = await MemoryErasure.objects.aget(memory_user_id=memory_user)
    assert (mark.username, mark.attempts) == (name, 1) and mark.last_error
    # Still unreachable: the retry fails, says so, and keeps the mark.
    with pytest.raises(SystemExit) as failed:
        await sync_to_async(call_command)("erase_pending_memory", verbosity=0)
    assert failed.value.code == 1
    assert (await MemoryErasure.objects.aget(pk=mark.pk)).attempts == 2

    settings.AGENT_MEMORY_URL = live_memory.base_url
    assert not await _memory_user_gone(memory_user)  # kept, not silently dropped
    await sync_to_async(call_command)("erase_pending_memory", verbosity=0)
    assert await _memory_user_gone(memory_user)
    assert not await MemoryErasure.objects.aexists()


async def test_a_renamed_account_keeps_its_memory_and_its_old_name_gets_none(
    live_memory, shopper_name
):
    name = shopper_name[:28].rstrip("-")
    await _visit_stating_a_size(await sync_to_async(_demo_sign_in)(name))
    await get_user_model().objects.filter(username=name).aupdate(username=f"{name}-2")

    welcome, searched, done = await _what_is_remembered(
        await sync_to_async(_demo_sign_in)(f"{name}-2")
    )
    assert welcome["greeting"].startswith("Welcome back")
    assert searched["counts"]["fact"] >= 1 and "size M" in done["text"]

    welcome, searched, done = await _what_is_remembered(await sync_to_async(_demo_sign_in)(name))
    assert "Welcome back" not in welcome["greeting"]
    assert searched["counts"]["fact"] == 0 and "size M" not in done["text"]


async def test_staff_see_a_pending_erasure_and_can_have_it_made(
    live_memory, shopper_name, settings, admin_user
):
    name = shopper_name[:30].rstrip("-")
    await _visit_stating_a_size(await sync_to_async(_demo_sign_in)(name))
    memory_user = await memory_user_of_async(name)
    settings.AGENT_MEMORY_URL = DEAD_MEMORY
    await _delete_account(name)
    settings.AGENT_MEMORY_URL = live_memory.base_url

    staff = Client()
    await sync_to_async(staff.force_login)(admin_user)
    listing = await sync_to_async(staff.get)("/admin/memoryapp/memoryerasure/")
    assert name in listing.content.decode() and "Connection refused" in listing.content.decode()
    mark = await MemoryErasure.objects.aget(memory_user_id=memory_user)
    done = await sync_to_async(staff.post)(
        "/admin/memoryapp/memoryerasure/",
        {"action": "erase_now", "_selected_action": [mark.pk]},
        follow=True,
    )
    assert f"Erased the memory of {name}." in done.content.decode()
    assert await _memory_user_gone(memory_user)
    assert not await MemoryErasure.objects.aexists()
