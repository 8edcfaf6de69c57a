"""The grounding check over the websocket: a hosted model's false claims never reach the
shopper as stated, the offline model's answers pass unchanged, and the answer still streams."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async

from assistant.models import ChatTurn
from assistant.turn.grounding import DROPPED_LINES
from harness.fake_openai import Reply
from shop.models import Product
from tests.support.chat import Chat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _tool_result(body: dict) -> dict:
    return json.loads([m for m in body["messages"] if m["role"] == "tool"][-1]["content"])


def _tokens(events: list[dict]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "token"]


def _done(events: list[dict]) -> dict:
    assert events[-1]["type"] == "done", events[-1]
    return events[-1]


@sync_to_async
def _stock(sku: str) -> dict[tuple[str, str], int]:
    product = Product.objects.get(sku=sku)
    return {(v.colour, v.size): v.stock for v in product.variants.all() if v.stock > 0}


@sync_to_async
def _a_product_missing_a_colour() -> tuple[str, str, str]:
    """A product with stock, and a catalog colour it has none of."""
    from shop.models import Colour

    for product in Product.objects.active().filter(category="jackets").order_by("sku"):
        have = {v.colour for v in product.variants.all() if v.stock > 0}
        missing = [c.value for c in Colour if c.value not in have]
        if have and missing:
            return product.sku, product.name, missing[0]
    raise AssertionError("the catalog has no such product")


async def test_a_wrong_price_is_corrected_before_the_shopper_reads_it(fake_openai):
    def wrong_price(body: dict) -> Reply:
        first = _tool_result(body)["products"][0]
        return Reply(text=f"The **{first['name']}** is just €1.00 today. Want it?", chunks=6)

    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", json.dumps({"category": "jackets"}))]),
        wrong_price,
    )
    async with Chat() as chat:
        events = await chat.turn("a jacket please", until=("done",))
    done = _done(events)
    card = done["products"][0]
    assert "€1.00" not in done["text"] and "€1.00" not in "".join(_tokens(events))
    assert f"€{card['price_eur']:.2f}" in done["text"]
    assert "".join(_tokens(events)) == done["text"]
    assert done["grounding"]["corrected"] == 1


async def test_a_wrong_stock_count_is_corrected_from_the_variants(fake_openai):
    sku = "JK-0082"
    stock = await _stock(sku)
    size = next(iter(sorted(s for _, s in stock)))
    truth = sum(n for (_, s), n in stock.items() if s == size)

    def wrong_count(body: dict) -> Reply:
        name = _tool_result(body)["name"]
        return Reply(text=f"Yes, the **{name}** is in stock in size {size} ({truth + 40} left).")

    fake_openai.script(
        "assistant", Reply(tool_calls=[("get_product", json.dumps({"sku": sku}))]), wrong_count
    )
    async with Chat() as chat:
        events = await chat.turn(f"is it in {size}?", until=("done",))
    done = _done(events)
    assert f"({truth} left)" in done["text"] and f"{truth + 40} left" not in done["text"]
    assert [c["sku"] for c in done["products"]] == [sku]


async def test_a_colour_out_of_stock_is_never_said_to_be_in_stock(fake_openai):
    sku, name, colour = await _a_product_missing_a_colour()
    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("get_product", json.dumps({"sku": sku}))]),
        Reply(text=f"Good news: the **{name}** is in stock in {colour}!"),
    )
    async with Chat() as chat:
        events = await chat.turn(f"do you have it in {colour}?", until=("done",))
    done = _done(events)
    assert "Good news" not in done["text"]
    assert f"isn't in stock in {colour}" in done["text"]


async def test_a_product_no_tool_returned_is_left_out_and_gets_no_card(fake_openai):
    def with_an_invented_one(body: dict) -> Reply:
        names = [p["name"] for p in _tool_result(body)["products"][:2]]
        return Reply(
            text=(
                "Here you go:\n"
                f"- **{names[0]}** — a good pick.\n"
                "- **Aurora Cashmere Poncho** — our bestseller.\n"
                f"- **{names[1]}** — another option.\n"
            )
        )

    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", json.dumps({"category": "knitwear"}))]),
        with_an_invented_one,
    )
    async with Chat() as chat:
        events = await chat.turn("knitwear?", until=("done",))
    done = _done(events)
    assert "Poncho" not in done["text"] and DROPPED_LINES["name"] in done["text"]
    listed = re.findall(r"\*\*([^*]+)\*\*", done["text"])
    # The cards are exactly the products the answer lists, in its order.
    assert [c["name"] for c in done["products"]] == listed and len(listed) == 2
    assert done["grounding"]["dropped"] == 1


async def test_the_answer_still_streams_a_sentence_at_a_time(fake_openai):
    def three_sentences(body: dict) -> Reply:
        first = _tool_result(body)["products"][0]
        return Reply(
            text=(
                f"The **{first['name']}** costs €{first['price_eur']:.2f}. "
                "It is a lovely everyday piece. Want me to check a size?"
            ),
            chunks=12,
        )

    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", json.dumps({"category": "shirts"}))]),
        three_sentences,
    )
    async with Chat() as chat:
        events = await chat.turn("shirts", until=("done",))
    tokens = _tokens(events)
    assert len(tokens) == 3, tokens
    assert tokens[0].endswith(". ") and tokens[1].endswith(". ")
    assert events.index(next(e for e in events if e["type"] == "token")) < len(events) - 1
    assert "".join(tokens) == _done(events)["text"]


async def test_the_verdicts_reach_the_timeline_and_the_chat_record(
    fake_openai, live_memory, shopper
):
    _, cookie = shopper
    fake_openai.script(
        "assistant",
        Reply(tool_calls=[("search_products", json.dumps({"category": "jackets"}))]),
        lambda body: Reply(text=f"The **{_tool_result(body)['products'][0]['name']}** is €3."),
    )
    async with Chat(cookie=cookie) as chat:
        events = await chat.turn("a jacket", until=("memory.added",))
    done = next(e for e in events if e["type"] == "done")
    span = [s["name"] for s in done["spans"] if s["name"].startswith("grounding")]
    assert span == ["grounding: 2 claims, 1 corrected, 0 dropped"]
    record = await ChatTurn.objects.aget(pk=done["turn_id"])
    kept = [s["name"] for s in record.timings["spans"] if s["name"].startswith("grounding")]
    assert kept == span
    # Counts only: nothing of the answer's text is kept with them.
    assert "€" not in json.dumps(record.timings)


# --- the offline model ------------------------------------------------------------------


OFFLINE_TURNS = [
    ("show me black jeans", None),
    ("t-shirts under 30 euros in M", None),
    ("do you have this in M?", {"kind": "product", "sku": "JN-0043"}),
    ("what colours does it come in?", {"kind": "product", "sku": "JK-0082"}),
    ("how much is it?", {"kind": "product", "sku": "TS-0004"}),
    ("is it in stock in yellow?", {"kind": "product", "sku": "TS-0004"}),
    ("something like this but cheaper", {"kind": "product", "sku": "JK-0089"}),
    ("boots in size 42", None),
    # As a new shopper might go on: budgets, words for sizes and colours, questions.
    ("sneakers under eighty euros", None),
    ("a navy jacket in large", None),
    ("what sizes does it come in?", {"kind": "product", "sku": "JK-0082"}),
    ("is there a cheaper one in black?", {"kind": "product", "sku": "TS-0004"}),
    ("something for a wedding, about 100 euros", None),
    ("what do you remember about me?", None),
]


@pytest.mark.parametrize("text, page", OFFLINE_TURNS)
async def test_the_offline_models_answers_pass_unchanged(text, page):
    async with Chat() as chat:
        events = await chat.turn(text, until=("done",), page=page)
    done = _done(events)
    assert done["grounding"]["corrected"] == 0 and done["grounding"]["dropped"] == 0, done["text"]
    assert not any(line in done["text"] for line in DROPPED_LINES.values())
    assert "".join(_tokens(events)) == done["text"]
