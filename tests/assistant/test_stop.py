"""Stop: a turn in progress is cancelled, nothing half-written is remembered, the socket lives on."""

from __future__ import annotations

import asyncio

import pytest

from assistant.models import ChatSession, ChatTurn
from harness.fake_openai import UNSCRIPTED_ANSWER, Reply, slow_reply
from memoryapp.clients import memory_client_async
from tests.support.chat import Chat
from tests.support.shopper_memory import memory_user_of_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

MESSAGE = {"type": "message", "text": "tell me everything", "session_id": None, "turn_count": 0}


async def _stream_cut(slow_model) -> bool:
    # The model server notices when the client closes the stream it is still writing.
    return await asyncio.to_thread(slow_model.cut.wait, 10)


async def test_stop_closes_the_model_stream_and_the_socket_stays_usable(slow_model):
    slow_model.script("assistant", slow_reply())
    async with Chat() as chat:
        await chat.send(MESSAGE)
        started = await chat.events_until("token")
        await chat.send({"type": "stop"})
        rest = await chat.events_until("stopped")
        assert await _stream_cut(slow_model)
        assert {e["type"] for e in rest} <= {"token", "stopped"}
        assert rest[-1] == {"type": "stopped", "turn_id": None}  # stateless: no record
        assert started[0]["type"] == "session"
        # The next message is answered on the same socket.
        events = await chat.turn("hello again", until=("done",))
    assert events[-1]["type"] == "done" and events[-1]["text"] == UNSCRIPTED_ANSWER


async def test_a_message_while_a_turn_runs_is_409_and_changes_nothing(slow_model):
    slow_model.script("assistant", slow_reply())
    async with Chat() as chat:
        await chat.send(MESSAGE)
        await chat.events_until("token")
        await chat.send({**MESSAGE, "text": "and another thing"})
        events = await chat.events_until("error")
        assert events[-1]["code"] == 409 and "already running" in events[-1]["message"]
        await chat.send({"type": "stop"})
        await chat.events_until("stopped")
    # Only the first message ever reached the model.
    asked = [r["messages"][-1]["content"] for r in slow_model.requests if r.get("stream")]
    assert asked == ["tell me everything"]


async def test_stop_with_nothing_running_answers_stopped():
    async with Chat() as chat:
        await chat.send({"type": "stop"})
        (event,) = await chat.events_until("stopped")
    assert event == {"type": "stopped", "turn_id": None}


async def test_a_stopped_turn_leaves_nothing_in_memory(live_memory, shopper, slow_model):
    username, cookie = shopper
    slow_model.script("assistant", slow_reply())
    async with Chat(cookie=cookie) as chat:
        await chat.send(MESSAGE)
        started = await chat.events_until("token")
        session_id = started[0]["session_id"]
        await chat.send({"type": "stop"})
        stopped = (await chat.events_until("stopped"))[-1]
        assert await _stream_cut(slow_model)
        record = await ChatTurn.objects.aget(pk=stopped["turn_id"])
        # The record keeps what the turn recalled and how long it ran; nothing was saved.
        assert record.stopped and record.saved == {} and record.timings["spans"]
        user = await memory_client_async().get_user(await memory_user_of_async(username))
        blocks = await (await user.get_session(session_id)).list_memories(limit=20)
        assert blocks.memory_blocks == []
        # No fact judge ran for the stopped turn.
        assert not [r for r in slow_model.requests if not r.get("stream")]

        # The visit goes on: the next turn is remembered, in the same session.
        events = await chat.turn("hello again", session_id=session_id, turn_count=0)
    assert events[0]["session_id"] == session_id and events[-1]["type"] == "memory.added"
    done = next(e for e in events if e["type"] == "done")
    following = await ChatTurn.objects.aget(pk=done["turn_id"])
    assert (following.index, following.stopped) == (2, False)
    blocks = await (await user.get_session(session_id)).list_memories(limit=20)
    assert [b.message.user_content for b in blocks.memory_blocks] == ["hello again"]


async def test_closing_the_socket_stops_the_turn(live_memory, shopper, slow_model):
    username, cookie = shopper
    slow_model.script("assistant", slow_reply())
    chat = Chat(cookie=cookie)
    await chat.__aenter__()
    await chat.send(MESSAGE)
    started = await chat.events_until("token")
    await chat.__aexit__(None, None, None)
    assert await _stream_cut(slow_model)
    record = await ChatTurn.objects.aget(session__memory_session_id=started[0]["session_id"])
    assert record.stopped and record.saved == {}
    user = await memory_client_async().get_user(await memory_user_of_async(username))
    blocks = await (await user.get_session(started[0]["session_id"])).list_memories(limit=20)
    assert blocks.memory_blocks == []


async def test_after_done_there_is_nothing_to_stop_and_memory_writes_finish(
    live_memory, shopper, fake_openai
):
    _username, cookie = shopper
    fake_openai.script("assistant", Reply(text="Here you are."))
    fake_openai.script("judge", Reply(text='{"facts": ["The shopper wears size L."]}', delay=1.0))
    async with Chat(cookie=cookie) as chat:
        await chat.send({**MESSAGE, "text": "I wear L"})
        await chat.events_until("done")
        await chat.send({"type": "stop"})
        rest = await chat.events_until("memory.added")
    assert {"type": "stopped", "turn_id": None} in rest
    assert rest[-1]["block_ids"]["turn"] and rest[-1]["block_ids"]["fact"]
    record = await ChatTurn.objects.aget()
    assert not record.stopped and record.saved["fact"] == rest[-1]["block_ids"]["fact"]


async def test_a_message_after_done_waits_for_the_previous_memory_writes(
    memory_proxy, shopper, fake_openai
):
    """Not a 409: the previous answer is complete. Its exchange is recalled by the next turn."""
    _username, cookie = shopper
    # Writing a turn block takes a while.
    memory_proxy.request_delay_for = lambda method, path, body: (
        1.0 if method == "POST" and path.endswith("/memory") and body.get("messages") else 0.0
    )
    fake_openai.script("assistant", Reply(text="Two pairs of black jeans."), Reply(text="Yes."))
    async with Chat(cookie=cookie) as chat:
        await chat.send({**MESSAGE, "text": "black jeans please"})
        first = await chat.events_until("done")
        session_id = first[0]["session_id"]
        await chat.send(
            {**MESSAGE, "text": "the cheaper one?", "session_id": session_id, "turn_count": 1}
        )
        events = await chat.events_until("memory.added")  # the first turn's
        events += await chat.events_until("memory.added")  # the second turn's
    assert "error" not in [e["type"] for e in events]
    searched = next(e for e in events if e["type"] == "memory.searched")
    assert any("black jeans please" in item["line"] for item in searched["items"])


async def test_close_during_a_turn_stops_it_then_closes(live_memory, shopper, slow_model):
    _username, cookie = shopper
    slow_model.script("assistant", slow_reply())
    async with Chat(cookie=cookie) as chat:
        await chat.send(MESSAGE)
        started = await chat.events_until("token")
        await chat.send({"type": "close", "session_id": started[0]["session_id"]})
        rest = await chat.events_until("closed")
    kinds = [e["type"] for e in rest if e["type"] != "token"]
    assert kinds == ["stopped", "closed"]
    assert rest[-1]["session_id"] == started[0]["session_id"]
    assert (await ChatSession.objects.aget()).closed_at is not None
