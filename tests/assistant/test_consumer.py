"""The websocket consumer and the turn pipeline, without a memory server."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from assistant.models import ChatSession, ChatTurn
from assistant.protocol.panels import shopper_group
from assistant.turn.grounding import DROPPED_LINES
from config.asgi import application
from harness.fake_openai import Reply
from llm.cards import MAX_CARDS
from llm.transcript import page_context_parse, products_shown_parse
from memoryapp.fence import NOTES_OPEN
from shop.models import Variant
from shop.services import shopper_get_or_create
from tests.support.chat import Chat, cookie_for, session_cookie_for, types
from tests.support.panels import account_id_of
from tests.support.shopper_memory import memory_user_of_async

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


def _price_frame(number: str) -> str:
    """A message frame whose catalog page filter's max_price is `number`, written as it is."""
    page = '{"kind": "catalog", "filters": {"max_price": ' + number + "}}"
    return '{"type": "message", "text": "hi", "page": ' + page + "}"


@pytest.mark.parametrize(
    ("frame", "code", "fragment"),
    [
        ("not json", 400, "not valid JSON"),
        # Past Python's 4,300-digit limit the decoder raises a plain ValueError.
        ('{"type": "message", "text": "hi", "turn_count": 1%s}' % ("0" * 4300), 400, "not valid"),
        ('{"type": "message", "text": "hi", "page": %s}' % ("[" * 20_000), 400, "not valid"),
        ('["a list"]', 400, "JSON object"),
        ({"type": "shout"}, 400, "Unknown frame type"),
        ({"type": "message"}, 400, "text is required"),
        ({"type": "message", "text": 42}, 400, "text is required"),
        ({"type": "message", "text": "   "}, 400, "Type a message"),
        ({"type": "message", "text": "x" * 4001}, 400, "4000 characters"),
        ({"type": "message", "text": "hi", "turn_count": "3"}, 400, "turn_count"),
        ({"type": "message", "text": "hi", "turn_count": -1}, 400, "turn_count"),
        ({"type": "message", "text": "hi", "session_id": 42}, 400, "session_id"),
        ({"type": "message", "text": "hi", "retention": "forever"}, 400, "retention"),
        ({"type": "message", "text": "hi", "retention": ["1h"]}, 400, "retention"),
        ({"type": "message", "text": "hi", "retention": {"1h": True}}, 400, "retention"),
        ({"type": "message", "text": "hi", "page": {"kind": "product", "sku": 7}}, 400, "page.sku"),
        ({"type": "message", "text": "hi", "history": "jeans"}, 400, "history"),
        ({"type": 7}, 400, "needs a type"),
        ({"type": "message", "text": "hi", "session_date": "01/05/2026"}, 422, "YYYY-MM-DD"),
        ({"type": "message", "text": "hi", "session_date": "2026-02-30"}, 422, "not a real date"),
        # Numbers no float holds, for the page's price filter and the turn count.
        (_price_frame("9" * 400), 400, "max_price must be a number from 0 to 1,000,000"),
        (_price_frame("9" * 4000), 400, "max_price must be a number from 0 to 1,000,000"),
        (_price_frame("1e400"), 400, "max_price must be a number from 0 to 1,000,000"),
        (_price_frame("NaN"), 400, "max_price must be a number from 0 to 1,000,000"),
        ('{"type": "message", "text": "hi", "turn_count": ' + "9" * 400 + "}", 400, "turn_count"),
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


async def test_an_unexpected_failure_is_a_500_and_the_socket_stays_usable(fake_openai, monkeypatch):
    from assistant.turn import pipeline

    real = pipeline._vocabulary

    async def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(pipeline, "_vocabulary", broken)
    async with Chat() as chat:
        events = await chat.turn("hello", until=("done",))
        assert events[-1] == {
            "type": "error",
            "code": 500,
            "message": "Something went wrong on our side. Please try again.",
            "retryable": True,
        }
        monkeypatch.setattr(pipeline, "_vocabulary", real)
        fake_openai.script("assistant", Reply(text="Fine now."))
        events = await chat.turn("hello again", until=("done",))
    assert events[-1]["type"] == "done" and events[-1]["text"] == "Fine now."


# --- page context --------------------------------------------------------------------------


def _page_messages(request: dict) -> list[dict]:
    """The page-context messages: system messages after the system prompt, carrying a page."""
    return [
        m
        for m in request["messages"][1:]
        if m["role"] == "system" and page_context_parse(m.get("content") or "") is not None
    ]


async def test_the_product_page_reaches_the_model_as_a_catalog_lookup(fake_openai):
    fake_openai.script("assistant", Reply(text="Yes, it comes in M."))
    async with Chat() as chat:
        events = await chat.turn(
            "do you have this in M?",
            until=("done",),
            # Only the SKU is read: a forged name or price in the page never reaches the model.
            page={"kind": "product", "sku": "JN-0043", "price_eur": 1, "name": "Free jeans"},
        )
    assert events[-1]["type"] == "done"
    messages = fake_openai.requests[0]["messages"]
    (page_message,) = _page_messages(fake_openai.requests[0])
    # System prompt, page context, then the shopper's message.
    assert messages[1] is not None and messages.index(page_message) == 1
    assert messages[-1] == {"role": "user", "content": "do you have this in M?"}
    product = page_context_parse(page_message["content"])["product"]
    assert (product["sku"], product["price_eur"]) == ("JN-0043", 160.95)
    assert "Free jeans" not in json.dumps(messages)


@pytest.mark.parametrize(
    "page",
    [{"kind": "product", "sku": "NOPE-404"}, {"kind": "other"}, None],
)
async def test_no_usable_page_means_no_page_message(fake_openai, page):
    fake_openai.script("assistant", Reply(text="Which product do you mean?"))
    async with Chat() as chat:
        events = await chat.turn("do you have this in M?", until=("done",), page=page)
    assert events[-1]["type"] == "done"
    assert _page_messages(fake_openai.requests[0]) == []


async def test_the_page_product_may_be_shown_as_a_card(fake_openai):
    fake_openai.script("assistant", Reply(text="The **Atelier Mira Bootcut Jeans** come in M."))
    async with Chat() as chat:
        events = await chat.turn(
            "do you have this in M?", until=("done",), page={"kind": "product", "sku": "JN-0043"}
        )
    done = events[-1]
    assert [card["sku"] for card in done["products"]] == ["JN-0043"]
    assert "tool" not in types(events)  # no tool call was needed to link it


# --- signed-out conversations --------------------------------------------------------------


def _notes(request: dict) -> str | None:
    found = [
        m["content"]
        for m in request["messages"]
        if m["role"] == "user" and NOTES_OPEN in (m.get("content") or "")
    ]
    assert len(found) <= 1
    return found[0] if found else None


async def test_a_signed_out_conversation_sends_its_last_exchanges_as_the_window(fake_openai):
    fake_openai.script("assistant", Reply(text="Here is a cheaper pair."))
    history = [
        {"user": "hello", "assistant": "Hi! What are you after?", "skus": []},
        {
            "user": "show me black jeans",
            "assistant": "Two pairs of black jeans.",
            "skus": ["JN-0043", "JN-0049"],
        },
    ]
    async with Chat() as chat:
        events = await chat.turn("cheaper please", until=("done",), history=history)
    assert events[0]["mode"] == "stateless" and events[-1]["type"] == "done"
    notes = _notes(fake_openai.requests[0])
    lines = [line for line in notes.splitlines() if line.startswith("[this visit]")]
    assert lines[0] == "[this visit] Shopper: hello ‖ Assistant: Hi! What are you after?"
    assert lines[1].startswith("[this visit] Shopper: show me black jeans ‖ Assistant: Two pairs")
    assert [p.sku for p in products_shown_parse(lines[1])] == ["JN-0043", "JN-0049"]
    messages = fake_openai.requests[0]["messages"]
    assert messages[-1] == {"role": "user", "content": "cheaper please"}
    assert messages[-2]["role"] == "user" and messages[-2]["content"] == notes
    # Nothing is stored for a signed-out conversation.
    assert not await ChatSession.objects.aexists() and not await ChatTurn.objects.aexists()


async def test_without_history_a_signed_out_turn_has_no_notes(fake_openai):
    fake_openai.script("assistant", Reply(text="Which product do you mean?"))
    async with Chat() as chat:
        await chat.turn("cheaper please", until=("done",), history=[])
    assert _notes(fake_openai.requests[0]) is None


async def test_history_is_the_window_when_memory_is_unavailable(fake_openai, memory_down):
    fake_openai.script("assistant", Reply(text="Here you are."))
    async with Chat(cookie=await cookie_for("ann")) as chat:
        events = await chat.turn(
            "cheaper please",
            until=("done",),
            history=[{"user": "black jeans?", "assistant": "Two pairs.", "skus": ["JN-0043"]}],
        )
    assert events[0]["mode"] == "memory_unavailable"
    assert "Shopper: black jeans?" in _notes(fake_openai.requests[0])


# --- done ----------------------------------------------------------------------------------


async def test_done_carries_at_most_four_cards_more_and_no_turn_id_when_stateless(fake_openai):
    search = json.dumps({"category": "jeans", "limit": 10})

    def name_them_all(body: dict) -> Reply:
        tool_message = next(m for m in body["messages"] if m["role"] == "tool")
        names = [p["name"] for p in json.loads(tool_message["content"])["products"]]
        return Reply(text="Options: " + ", ".join(names))

    fake_openai.script("assistant", Reply(tool_calls=[("search_products", search)]), name_them_all)
    async with Chat() as chat:
        events = await chat.turn("all the jeans", until=("done",))
    done = events[-1]
    assert set(done) == {
        "type",
        "text",
        "products",
        "more",
        "turn_id",
        "model",
        "spans",
        "grounding",
    }
    assert 1 <= len(done["products"]) <= MAX_CARDS
    assert done["turn_id"] is None and isinstance(done["more"], bool)


# --- hello ---------------------------------------------------------------------------------


async def test_hello_signed_out_gets_a_plain_greeting_and_three_suggestions():
    async with Chat() as chat:
        await chat.send({"type": "hello"})
        (welcome,) = await chat.events_until("welcome")
        await chat.send({"type": "hello", "page": {"kind": "product", "sku": "JN-0043"}})
        (on_page,) = await chat.events_until("welcome")
    assert welcome["mode"] == "stateless" and "Welcome back" not in welcome["greeting"]
    assert len(welcome["suggestions"]) == 3 == len(set(welcome["suggestions"]))
    assert on_page["suggestions"][0] == "Which sizes does this come in?"
    assert not await ChatSession.objects.aexists()


async def test_hello_with_a_bad_page_is_a_400():
    async with Chat() as chat:
        await chat.send({"type": "hello", "page": {"kind": "shelf"}})
        (error,) = await chat.events_until("error")
    assert error["code"] == 400 and "page.kind" in error["message"]


# --- the shopper's group -------------------------------------------------------------------


async def test_memory_changed_reaches_every_open_panel_of_that_shopper_only():
    layer = get_channel_layer()
    change = {"reason": "erased", "session_ids": ["session4"], "block_id": None}
    ann_cookie, ben_cookie = await cookie_for("ann"), await cookie_for("ben")
    ann = shopper_group(await sync_to_async(account_id_of)("ann"))
    # The layer outlives tests: panels other tests left open may still be in the group.
    before = set(layer.groups.get(ann, {}))
    async with (
        Chat(cookie=ann_cookie) as tab1,
        Chat(cookie=ann_cookie) as tab2,
        Chat(cookie=ben_cookie) as ben,
        Chat() as anonymous,
    ):
        await layer.group_send(ann, {"type": "memory.changed", **change})
        for tab in (tab1, tab2):
            (event,) = await tab.events_until("memory.changed")
            assert event == {"type": "memory.changed", **change}
        assert await ben.communicator.receive_nothing()
        assert await anonymous.communicator.receive_nothing()
    # Closed sockets leave the group.
    assert set(layer.groups.get(ann, {})) == before


async def test_a_renamed_shoppers_open_panel_stays_theirs_and_not_the_names():
    layer = get_channel_layer()
    change = {"reason": "erased", "session_ids": [], "block_id": None}
    cookie = await cookie_for("ann")
    async with Chat(cookie=cookie) as tab:
        await tab.send({"type": "hello"})
        await tab.events_until("welcome")
        User = get_user_model()
        await User.objects.filter(username="ann").aupdate(username="ann-renamed")
        newcomer = await sync_to_async(shopper_get_or_create)(username="ann")
        # The new "ann"'s news never reaches the renamed account's panel; its own does.
        await layer.group_send(shopper_group(newcomer.pk), {"type": "memory.changed", **change})
        assert await tab.communicator.receive_nothing()
        renamed = await User.objects.aget(username="ann-renamed")
        await layer.group_send(shopper_group(renamed.pk), {"type": "memory.changed", **change})
        (event,) = await tab.events_until("memory.changed")
    assert event == {"type": "memory.changed", **change}


# --- with the offline model ----------------------------------------------------------------


async def test_this_on_a_product_page_means_that_product():
    async with Chat() as chat:
        events = await chat.turn(
            "do you have this in M?", until=("done",), page={"kind": "product", "sku": "JN-0043"}
        )
    done = events[-1]
    assert done["type"] == "done" and [c["sku"] for c in done["products"]] == ["JN-0043"]
    assert "M" in done["products"][0]["sizes_in_stock"]


async def test_a_signed_out_follow_up_uses_the_conversation_sent_back():
    async with Chat() as chat:
        first = await chat.turn("show me black jeans", until=("done",))
        shown = first[-1]["products"]
        assert shown and all("black" in c["colours"] for c in shown)
        history = [
            {
                "user": "show me black jeans",
                "assistant": first[-1]["text"],
                "skus": [c["sku"] for c in shown],
            }
        ]
        events = await chat.turn("cheaper please", until=("done",), history=history)
    search = next(e for e in events if e["type"] == "tool" and e["name"] == "search_products")
    arguments = json.loads(search["arguments"])
    assert arguments["max_price"] < min(c["price_eur"] for c in shown)
    assert all(c["price_eur"] <= arguments["max_price"] for c in events[-1]["products"])


# Python's date.fromisoformat reads the first two (basic and week-date ISO forms); none is
# written YYYY-MM-DD, which is all a session date may be.
NOT_YYYY_MM_DD = ["20260501", "2026-W18-5", "2026-5-1"]


@pytest.mark.parametrize("session_date", NOT_YYYY_MM_DD)
async def test_a_date_not_written_yyyy_mm_dd_is_422_and_writes_nothing(
    fake_openai, live_memory, session_date
):
    import uuid

    from agentmemory.exceptions import NotFoundError
    from asgiref.sync import sync_to_async

    from memoryapp.clients import memory_client_async
    from shop.services import shopper_get_or_create

    # A name of its own per date: a memory user left by another case would hide nothing.
    username = f"dated-{uuid.uuid4().hex[:12]}"
    await sync_to_async(shopper_get_or_create)(username=username, display_name="Dee")
    cookie = await cookie_for(username)
    async with Chat(cookie=cookie) as chat:
        (event,) = await chat.turn("hello", session_date=session_date, until=("done",))
    assert event["type"] == "error" and event["code"] == 422
    assert "YYYY-MM-DD" in event["message"]
    assert fake_openai.requests == []
    assert not await ChatSession.objects.aexists() and not await ChatTurn.objects.aexists()
    with pytest.raises(NotFoundError):  # no memory user, so no session and no block either
        await memory_client_async().get_user(await memory_user_of_async(username))


async def test_only_products_a_tool_returned_this_turn_are_links_in_what_the_shopper_gets(
    fake_openai,
):
    from tests.support.shopping import catalog_product

    remembered = catalog_product("DR-0061")  # a real product page, but no tool returned it

    def answer_linking(body: dict) -> Reply:
        (result,) = [m for m in body["messages"] if m["role"] == "tool"]
        # The model reads no page addresses (its card links a product): this one writes the
        # link of a product the tool returned anyway, as a model that knows the shop might.
        returned = catalog_product(json.loads(result["content"])["products"][0]["sku"])
        return Reply(
            text=(
                f"Try the [{returned['name']}]({returned['url']}). Staff can "
                "[change prices](/admin/shop/product/), [sign in](/signin/) to save it, "
                "or browse [every product](/products/). Or see the "
                f"[{remembered['name']}]({remembered['url']}) you liked."
            ),
            chunks=9,  # links split across chunks, as a real model streams them
        )

    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", json.dumps({"category": "t-shirts"}))]),
        answer_linking,
    )
    async with Chat() as chat:
        events = await chat.turn("show me t-shirts", until=("done",))
    tool = next(e for e in events if e["type"] == "tool")
    done = events[-1]
    assert done["type"] == "done", events
    text = done["text"]
    returned_urls = {card["url"] for card in done["products"]}
    links = re.findall(r"\]\(([^)]*)\)", text)
    assert links and set(links) <= returned_urls, text
    assert "/admin/" not in text and "/signin/" not in text and remembered["url"] not in text
    assert "](/products/)" not in text
    # Their words stay, as plain text; but a product no tool returned is named nowhere.
    assert "change prices" in text and "sign in" in text and remembered["name"] not in text
    assert DROPPED_LINES["name"] in text
    assert remembered["sku"] not in {card["sku"] for card in done["products"]}
    assert tool["name"] == "search_products"
    # What streamed is what was kept: no link showed even for a moment.
    assert "".join(e["text"] for e in events if e["type"] == "token") == text
