"""An open chat socket speaks for its shopper only while their sign-in holds.

Every way a sign-in ends — signing out, someone else signing in over it in the same
browser, deactivation, deletion — is tried twice: once with the push through the shopper's
group (the socket ends at once, unprompted), and once with the push lost (another process
on the in-memory layer): then the next frame is refused before anything is read or written.
"""

from __future__ import annotations

import pytest
from agentmemory.exceptions import NotFoundError
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from assistant.models import ChatTurn, DemoSettings
from assistant.protocol import events as protocol
from assistant.protocol.panels import memory_changed_send_async
from harness.fake_openai import slow_reply
from memoryapp.clients import memory_client_async
from shop.services import shopper_get_or_create
from tests.support.chat import Chat, cookie_for
from tests.support.panels import account_id_of
from tests.support.shopper_memory import memory_user_of_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

MESSAGE = {"type": "message", "text": "I'm a size M, show me jeans", "session_id": None}


def _browser(cookie: bytes) -> Client:
    """The shopper's browser: a test client holding the socket's own session cookie."""
    client = Client()
    name, value = cookie.decode().split("=", 1)
    client.cookies[name] = value
    return client


def _sign_out(username: str, cookie: bytes) -> None:
    assert _browser(cookie).post("/signout/").status_code == 302


def _someone_else_signs_in(username: str, cookie: bytes) -> None:
    response = _browser(cookie).post("/signin/", {"username": "bob-next"})
    assert response.status_code == 302


def _deactivate(username: str, cookie: bytes) -> None:
    user = get_user_model().objects.get(username=username)
    user.is_active = False
    user.save()


def _delete(username: str, cookie: bytes) -> None:
    get_user_model().objects.get(username=username).delete()


ENDINGS = [
    pytest.param(_sign_out, "signed_out", id="sign-out"),
    pytest.param(_someone_else_signs_in, "signed_out", id="another-signs-in"),
    pytest.param(_deactivate, "deactivated", id="deactivation"),
    pytest.param(_delete, "deleted", id="deletion"),
]


async def _ended(chat: Chat, reason: str) -> list[dict]:
    """The events up to `signed_out`, then the close: the socket is done for good."""
    events = await chat.events_until("signed_out")
    assert events[-1] == {"type": "signed_out", "reason": reason}
    closed = await chat.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": protocol.CLOSE_SIGNED_OUT}
    return events


async def _memory_blocks(username: str, *, user_id: str | None = None) -> list | None:
    """Every block Agent Memory holds for the shopper (or memory user `user_id`); None when
    it has no such user."""
    try:
        user_id = user_id or await memory_user_of_async(username)
        user = await memory_client_async().get_user(user_id)
    except NotFoundError:
        return None
    blocks = []
    for session_id in user.sessions or []:
        listed = await (await user.get_session(session_id)).list_memories(limit=100)
        blocks.extend(listed.memory_blocks)
    return blocks


@pytest.mark.parametrize(("ending", "reason"), ENDINGS)
async def test_the_ending_is_pushed_to_the_open_socket_at_once(
    live_memory, shopper, ending, reason
):
    username, cookie = shopper
    other_browser = await cookie_for(username)
    async with Chat(cookie=cookie) as chat, Chat(cookie=other_browser) as elsewhere:
        first = await chat.turn("I'm a size M, show me jeans")
        assert first[0]["mode"] == "remembering"
        await chat.send({"type": "hello"})  # the other browser's socket is in the group too
        await chat.events_until("welcome")
        await elsewhere.send({"type": "hello"})
        await elsewhere.events_until("welcome")
        await sync_to_async(ending)(username, cookie)
        assert types_of(await _ended(chat, reason)) == ["signed_out"]
        if reason == "signed_out":
            # One browser signed out: the shopper's other browser is still signed in.
            assert await elsewhere.communicator.receive_nothing()
        else:
            await _ended(elsewhere, reason)


def types_of(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


@pytest.mark.parametrize(("ending", "reason"), ENDINGS)
async def test_a_frame_after_the_sign_in_ended_reads_and_writes_nothing(
    live_memory, shopper, monkeypatch, ending, reason
):
    """The push is lost: the frame itself is refused, before memory is read or written."""
    from assistant import signals

    monkeypatch.setattr(signals, "shopper_ended_send", lambda **kwargs: False)
    username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I'm a size M, show me jeans")
        session_id = first[0]["session_id"]
        memory_user = await memory_user_of_async(username)
        before = await _memory_blocks(username)
        turns_before = await ChatTurn.objects.acount()
        await sync_to_async(ending)(username, cookie)
        assert await chat.communicator.receive_nothing()  # nobody told the socket
        await chat.send({**MESSAGE, "text": "I love red", "session_id": session_id})
        assert types_of(await _ended(chat, reason)) == ["signed_out"]
    # Nothing was read for the frame, nothing written: no turn record, no block; and a
    # deleted account's memory is erased with it, never made again.
    assert await ChatTurn.objects.acount() == (0 if reason == "deleted" else turns_before)
    after = await _memory_blocks(username, user_id=memory_user)
    if reason == "deleted":
        assert after is None
    else:
        assert [b.block_id for b in after] == [b.block_id for b in before]


async def test_each_frame_kind_is_refused_after_a_sign_out(live_memory, shopper, monkeypatch):
    from assistant import signals

    monkeypatch.setattr(signals, "shopper_ended_send", lambda **kwargs: False)
    username, _ = shopper
    for frame in ({"type": "hello"}, {"type": "close", "session_id": "session1"}, MESSAGE):
        fresh = await cookie_for(username)
        async with Chat(cookie=fresh) as chat:
            await sync_to_async(_sign_out)(username, fresh)
            await chat.send(frame)
            assert types_of(await _ended(chat, "signed_out")) == ["signed_out"]
    assert await _memory_blocks(username) is None  # not even the welcome's read made a user


async def test_a_sign_out_during_a_turn_stops_it_and_nothing_is_saved(
    live_memory, shopper, slow_model
):
    username, cookie = shopper
    slow_model.script("assistant", slow_reply())
    async with Chat(cookie=cookie) as chat:
        await chat.send(MESSAGE)
        started = await chat.events_until("token")
        assert started[0]["mode"] == "remembering"
        await sync_to_async(_sign_out)(username, cookie)
        rest = await _ended(chat, "signed_out")
        assert [e["type"] for e in rest if e["type"] != "token"] == ["stopped", "signed_out"]
    record = await ChatTurn.objects.aget(pk=rest[-2]["turn_id"])
    assert record.stopped and record.saved == {}
    assert await _memory_blocks(username) == []
    assert not [r for r in slow_model.requests if not r.get("stream")]  # no fact judge ran


async def test_a_sign_in_that_ends_while_the_answer_streams_drops_its_writes(
    live_memory, shopper, slow_model, monkeypatch
):
    """No push: the check after `done` finds the session gone and the writes never run."""
    from assistant import signals

    monkeypatch.setattr(signals, "shopper_ended_send", lambda **kwargs: False)
    username, cookie = shopper
    slow_model.script("assistant", slow_reply(words=40))
    async with Chat(cookie=cookie) as chat:
        await chat.send(MESSAGE)
        await chat.events_until("token")
        await Session.objects.all().adelete()  # the session expired, say
        rest = await _ended(chat, "signed_out")
    assert "done" in types_of(rest) and "memory.added" not in types_of(rest)
    assert await _memory_blocks(username) == []
    assert not [r for r in slow_model.requests if not r.get("stream")]


async def test_the_next_shopper_in_the_same_browser_gets_their_own_socket(live_memory, shopper):
    username, cookie = shopper
    async with Chat(cookie=cookie) as ann:
        await ann.turn("I'm a size M, show me jeans")
        await sync_to_async(_someone_else_signs_in)(username, cookie)
        await _ended(ann, "signed_out")
    bob_cookie = await cookie_for("bob-next")
    async with Chat(cookie=bob_cookie) as bob:
        events = await bob.turn("what do you remember about me?")
    assert events[0]["mode"] == "remembering" and events[0]["shopper"] == "Bob-next"
    assert "size M" not in next(e for e in events if e["type"] == "done")["text"]


async def test_an_erase_stops_the_turn_closes_the_socket_and_nothing_comes_back(
    live_memory, shopper, slow_model
):
    username, cookie = shopper
    slow_model.script("assistant", slow_reply())
    async with Chat(cookie=cookie) as chat:
        await chat.send(MESSAGE)
        started = await chat.events_until("token")
        session_id = started[0]["session_id"]
        account_id = await sync_to_async(account_id_of)(username)
        await memory_changed_send_async(
            account_id=account_id, reason="erased", session_ids=[session_id]
        )
        rest = await chat.events_until("memory.changed")
        assert [e["type"] for e in rest if e["type"] != "token"] == ["stopped", "memory.changed"]
        closed = await chat.communicator.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": protocol.CLOSE_MEMORY_ERASED}
    assert await _memory_blocks(username) == []
    # Still signed in: a new socket goes on remembering, in a new session.
    async with Chat(cookie=cookie) as again:
        events = await again.turn("show me boots")
    assert events[0]["mode"] == "remembering"


# --- the mode line, live ---------------------------------------------------------------------


def _memory_switch(enabled: bool) -> None:
    row, _ = DemoSettings.objects.get_or_create(pk=1)
    row.memory_enabled = enabled
    row.save()


async def test_staff_switching_memory_reaches_every_open_signed_in_panel(shopper):
    _, cookie = shopper
    await sync_to_async(_memory_switch)(True)
    async with Chat(cookie=cookie) as panel, Chat() as signed_out:
        await sync_to_async(_memory_switch)(False)
        (event,) = await panel.events_until("mode.changed")
        assert event == {"type": "mode.changed", "mode": "memory_off"}
        await sync_to_async(_memory_switch)(True)
        (event,) = await panel.events_until("mode.changed")
        assert event == {"type": "mode.changed", "mode": "remembering"}
        # Another edit of the settings is no switch: nothing is said.
        row = await DemoSettings.objects.aget(pk=1)
        row.signin_note = "Try Ann"
        await sync_to_async(row.save)()
        assert await panel.communicator.receive_nothing()
        assert await signed_out.communicator.receive_nothing()


async def test_a_panel_whose_sign_in_ended_is_not_told_it_remembers(shopper, monkeypatch):
    from assistant import signals

    monkeypatch.setattr(signals, "shopper_ended_send", lambda **kwargs: False)
    username, cookie = shopper
    await sync_to_async(_memory_switch)(False)
    async with Chat(cookie=cookie) as panel:
        await sync_to_async(_sign_out)(username, cookie)
        await sync_to_async(_memory_switch)(True)
        assert types_of(await _ended(panel, "signed_out")) == ["signed_out"]


async def test_a_closed_socket_leaves_the_panels_group(shopper):
    from channels.layers import get_channel_layer

    from assistant.protocol.panels import PANELS_GROUP

    layer = get_channel_layer()
    before = set(layer.groups.get(PANELS_GROUP, {}))
    _, cookie = shopper
    async with Chat(cookie=cookie), Chat():
        assert len(set(layer.groups.get(PANELS_GROUP, {})) - before) == 1  # not the signed-out
    assert set(layer.groups.get(PANELS_GROUP, {})) == before


@pytest.fixture(autouse=True)
def _bob(django_db_blocker):
    with django_db_blocker.unblock():
        shopper_get_or_create(username="bob-next")


async def test_signing_in_again_as_the_same_shopper_keeps_the_open_socket(live_memory, shopper):
    username, cookie = shopper

    def sign_in_again() -> None:
        response = _browser(cookie).post("/signin/", {"username": username})
        assert response.status_code == 302

    async with Chat(cookie=cookie) as chat:
        await chat.turn("I'm a size M, show me jeans")
        await sync_to_async(sign_in_again)()
        assert await chat.communicator.receive_nothing()
        events = await chat.turn("show me boots", session_id="session1", turn_count=1)
    assert events[0]["mode"] == "remembering" and events[-1]["type"] == "memory.added"
