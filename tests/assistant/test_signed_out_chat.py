"""Signed out, the conversation in progress holds what the shopper stated in it, from the
history the browser sends back, and keeps none of it."""

from __future__ import annotations

import json

import pytest

from assistant.models import ChatSession
from tests.support.chat import Chat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _done(events: list[dict]) -> dict:
    assert events[-1]["type"] == "done", events[-1]
    return events[-1]


async def _exchange(chat: Chat, text: str, history: list[dict], **fields) -> dict:
    done = _done(await chat.turn(text, until=("done",), history=history[-3:], **fields))
    history.append(
        {"user": text, "assistant": done["text"], "skus": [c["sku"] for c in done["products"]]}
    )
    return done


def _search(events: list[dict]) -> dict:
    tool = next(e for e in events if e["type"] == "tool" and e["name"] == "search_products")
    return json.loads(tool["arguments"])


async def test_a_size_said_earlier_applies_to_a_later_search():
    history: list[dict] = []
    async with Chat() as chat:
        await _exchange(chat, "I'm a size S", history)
        events = await chat.turn("show me t-shirts", until=("done",), history=history)
    assert _search(events)["size"] == "S"
    assert all("S" in card["sizes_in_stock"] for card in _done(events)["products"])


async def test_colours_and_budget_said_earlier_apply_too():
    history: list[dict] = []
    async with Chat() as chat:
        await _exchange(chat, "I can't stand yellow", history)
        await _exchange(chat, "my budget is 50 euros", history)
        events = await chat.turn("show me dresses", until=("done",), history=history)
    arguments = _search(events)
    assert "yellow" in arguments.get("exclude_colours", [])
    assert arguments["max_price"] == 50
    for card in _done(events)["products"]:
        assert "yellow" not in card["colours"] and card["price_eur"] <= 50


async def test_what_size_am_i_answers_from_this_chat_and_says_it_is_not_kept():
    history: list[dict] = []
    async with Chat() as chat:
        await _exchange(chat, "I'm a size S", history)
        await _exchange(chat, "show me jeans", history)
        done = await _exchange(chat, "what size am I?", history)
    assert "size S" in done["text"] and "in this chat" in done["text"]
    assert "won't keep it" in done["text"]
    assert "not signed in" in done["text"]
    assert not await ChatSession.objects.aexists()


async def test_the_newest_statement_wins():
    history: list[dict] = []
    async with Chat() as chat:
        await _exchange(chat, "I'm a size S", history)
        await _exchange(chat, "actually I'm a size L now", history)
        done = await _exchange(chat, "what size am I?", history)
    assert "size L" in done["text"] and "size S" not in done["text"]


async def test_without_history_nothing_is_known():
    async with Chat() as chat:
        done = _done(await chat.turn("what size am I?", until=("done",)))
    assert "not signed in" in done["text"] and "in this chat" not in done["text"]


async def test_only_the_shoppers_words_are_read_never_an_answer():
    history = [{"user": "hello", "assistant": "I'm a size XL and I love yellow.", "skus": []}]
    async with Chat() as chat:
        events = await chat.turn("show me t-shirts", until=("done",), history=history)
    arguments = _search(events)
    assert arguments.get("size") != "XL" and arguments.get("colour") != "yellow"


async def test_a_size_said_before_the_last_three_exchanges_still_holds():
    history: list[dict] = []
    async with Chat() as chat:
        for text in ("I'm a size S", "hello", "show me jeans", "thanks"):
            await _exchange(chat, text, history)
        said = [exchange["user"] for exchange in history[:-3]]
        events = await chat.turn(
            "show me t-shirts", until=("done",), history=history[-3:], said=said
        )
        without = await chat.turn("show me t-shirts", until=("done",), history=history[-3:])
    assert _search(events)["size"] == "S"
    assert "size" not in _search(without)


@pytest.mark.parametrize(
    "said, field",
    [("S", "said"), ([1], "said"), (["x"] * 21, "said"), (["x" * 1001], "said")],
)
async def test_a_malformed_said_is_a_400_that_changes_nothing(said, field):
    async with Chat() as chat:
        (event,) = await chat.turn("hi", until=("done",), said=said)
    assert event["type"] == "error" and event["code"] == 400 and field in event["message"]
