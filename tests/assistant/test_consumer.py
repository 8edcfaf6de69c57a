"""The websocket consumer and the turn pipeline, without a memory server."""

from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator

from assistant.models import ChatSession, ChatTurn
from config.asgi import application
from shop.models import Variant
from tests.assistant.conftest import Chat, session_cookie_for, types
from tests.support.fake_openai import Reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

SEARCH_JEANS = json.dumps({"category": "jeans", "size": "M", "exclude_colours": ["yellow"]})


async def test_signed_out_turn_streams_tool_results_and_cards(fake_openai):
    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", SEARCH_JEANS)]),
        Reply(text="Here are some jeans in M, none of them yellow."),
    )
    async with Chat() as chat:
        events = await chat.turn("I'm a size M and I hate yellow, show me jeans", until=("done",))
    assert types(events) == ["session", "tool", "token", "done"]
    session = events[0]
    assert session["mode"] == "stateless" and session["session_id"] is None
    tool = events[1]
    assert tool["name"] == "search_products" and json.loads(tool["arguments"])["size"] == "M"
    done = events[-1]
    assert done["text"] == "Here are some jeans in M, none of them yellow."
    assert "".join(e["text"] for e in events if e["type"] == "token") == done["text"]
    assert done["products"], "the latest search results become cards"
    for card in done["products"]:
        assert "M" in card["sizes_in_stock"] and "yellow" not in card["colours"]
        assert await _in_stock(card["sku"], "M")
    # Signed out: no memory tool offered, nothing recorded.
    assert {t["function"]["name"] for t in fake_openai.requests[0]["tools"]} == {
        "search_products",
        "get_product",
    }
    assert not await ChatSession.objects.aexists()


async def _in_stock(sku: str, size: str) -> bool:
    return await Variant.objects.filter(product__sku=sku, size=size, stock__gt=0).aexists()


async def test_streamed_arguments_assemble_and_cards_follow_named_products(fake_openai):
    arguments = json.dumps({"category": "boots", "query": "hiking"})

    def name_the_first_result(body: dict) -> Reply:
        tool_message = next(m for m in body["messages"] if m["role"] == "tool")
        first = json.loads(tool_message["content"])["products"][0]
        return Reply(text=f"Try the **{first['name']}**.")

    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", arguments)], chunks=7),
        name_the_first_result,
    )
    async with Chat() as chat:
        events = await chat.turn("hiking boots please", until=("done",))
    tool = next(e for e in events if e["type"] == "tool")
    assert json.loads(tool["arguments"]) == {"category": "boots", "query": "hiking"}
    done = events[-1]
    assert done["type"] == "done" and len(done["products"]) == 1
    assert done["products"][0]["name"] in done["text"]
    assert done["products"][0]["sku"].startswith("BT-")


async def test_malformed_tool_arguments_become_a_tool_error_not_a_crash(fake_openai):
    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", '{"category": "jeans", ')]),
        Reply(tool_calls=[("search_products", json.dumps({"colour": "plaid"}))]),
        Reply(text="Sorry, I could not search just now."),
    )
    async with Chat() as chat:
        events = await chat.turn("jeans", until=("done",))
    summaries = [e["summary"] for e in events if e["type"] == "tool"]
    assert summaries == ["invalid arguments", "invalid arguments"]
    round2 = fake_openai.requests[1]["messages"][-1]
    assert round2["role"] == "tool" and "not valid JSON" in round2["content"]
    round3 = fake_openai.requests[2]["messages"][-1]
    assert "colour must be one of" in round3["content"]
    assert events[-1]["text"] == "Sorry, I could not search just now."


async def test_model_error_sends_an_error_and_the_socket_stays_usable(fake_openai):
    fake_openai.script("assistant", Reply(status=500), Reply(status=500), Reply(text="Back again."))
    async with Chat() as chat:
        events = await chat.turn("hello", until=("done",))
        assert (
            events[-1]["type"] == "error" and events[-1]["code"] == 502 and events[-1]["retryable"]
        )
        events = await chat.turn("hello again", until=("done",))
        assert events[-1] == {**events[-1], "type": "done", "text": "Back again."}


@pytest.mark.parametrize(
    ("frame", "code", "fragment"),
    [
        ("not json", 400, "not valid JSON"),
        ('["a list"]', 400, "JSON object"),
        ({"type": "shout"}, 400, "Unknown frame type"),
        ({"type": "message"}, 400, "text is required"),
        ({"type": "message", "text": 42}, 400, "text is required"),
        ({"type": "message", "text": "   "}, 400, "Type a message"),
        ({"type": "message", "text": "x" * 4001}, 400, "4000 characters"),
        ({"type": "message", "text": "hi", "turn_count": "3"}, 400, "turn_count"),
        ({"type": "message", "text": "hi", "turn_count": -1}, 400, "turn_count"),
        ({"type": "message", "text": "hi", "session_id": "a/b"}, 400, "session_id"),
        ({"type": "message", "text": "hi", "retention": "forever"}, 400, "retention"),
        ({"type": "message", "text": "hi", "session_date": "01/05/2026"}, 422, "YYYY-MM-DD"),
        ({"type": "message", "text": "hi", "session_date": "2026-02-30"}, 422, "not a real date"),
    ],
)
async def test_bad_frames_get_an_error_and_write_nothing(
    fake_openai, live_memory, frame, code, fragment
):
    cookie = await _cookie("ann")
    async with Chat(cookie=cookie) as chat:
        await chat.send(frame)
        (event,) = await chat.events_until("error")
        assert event["code"] == code and fragment in event["message"]
        assert fake_openai.requests == []
        assert not await ChatSession.objects.aexists() and not await ChatTurn.objects.aexists()
        # The same socket still answers the next, well-formed message.
        fake_openai.script("assistant", Reply(text="Hi!"))
        events = await chat.turn("hello", until=("done",))
    assert events[-1]["type"] == "done" and events[-1]["text"] == "Hi!"


async def test_a_foreign_origin_is_refused():
    communicator = WebsocketCommunicator(
        application,
        "/ws/assistant/",
        headers=[(b"origin", b"http://evil.example"), (b"host", b"127.0.0.1")],
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_memory_down_still_answers_and_says_so(fake_openai, memory_down):
    fake_openai.script("assistant", Reply(text="Here you go."))
    cookie = await _cookie("ann")
    async with Chat(cookie=cookie) as chat:
        events = await chat.turn("show me jeans", until=("done",))
    assert events[0]["type"] == "session" and events[0]["mode"] == "memory_unavailable"
    assert events[0]["shopper"] == "Ann"
    assert events[-1]["type"] == "done" and events[-1]["text"] == "Here you go."
    assert "memory.searched" not in types(events)
    tools = {t["function"]["name"] for t in fake_openai.requests[0]["tools"]}
    assert tools == {"search_products", "get_product"}


async def _cookie(username: str) -> bytes:
    from asgiref.sync import sync_to_async

    return await sync_to_async(session_cookie_for)(username)


async def test_a_model_timeout_is_reported_and_the_socket_stays_usable(fake_openai, settings):
    settings.MODEL_TIMEOUT_SECONDS = 0.3
    fake_openai.script("assistant", Reply(text="late", delay=1.5), Reply(text="late", delay=1.5))
    async with Chat() as chat:
        events = await chat.turn("hello", until=("done",))
        assert events[-1]["type"] == "error" and events[-1]["code"] == 504
        assert "too long" in events[-1]["message"]
        settings.MODEL_TIMEOUT_SECONDS = 30
        fake_openai.script("assistant", Reply(text="On time."))
        events = await chat.turn("hello again", until=("done",))
    assert events[-1]["type"] == "done" and events[-1]["text"] == "On time."
