"""The offline model's shopping capabilities, whole turns over the websocket and the catalog.

Each test asks as a shopper would, through the real consumer, pipeline, tools and catalog,
and checks what the shopper would see: the first search's arguments, the cards, the text.
"""

from __future__ import annotations

import json
import re

import pytest

from assistant.turn.greeting import DEFAULT_SUGGESTIONS, Preferences, suggestions_compose
from tests.support.chat import Chat, session_cookie_for
from tests.support.shopping import answer_after, conversation, product_detail

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TRENCH = {"kind": "product", "sku": "JK-0090"}  # black (L sold out) and red, €78.95
WRAP_DRESS = {"kind": "product", "sku": "DR-0060"}  # pink, yellow and red, all three in L
CREW_TEE = {"kind": "product", "sku": "TS-0001"}  # black, €23.00


@pytest.fixture
def signed_in(shopper_name, django_db_blocker) -> bytes:
    """A fresh signed-in shopper's session cookie, unique to the test on the memory server."""
    from shop.services import shopper_get_or_create

    username = shopper_name[:30].rstrip("-")
    with django_db_blocker.unblock():
        shopper_get_or_create(username=username, display_name="Tess")
        return session_cookie_for(username)


async def _ask(text: str, **fields) -> dict:
    async with Chat() as chat:
        events = await chat.turn(text, until=("done",), **fields)
    return _turn(events)


def _turn(events: list[dict]) -> dict:
    done = next((e for e in events if e["type"] == "done"), None)
    assert done is not None, events[-1]
    tools = [e for e in events if e["type"] == "tool"]
    return {
        "text": done["text"],
        "cards": done["products"],
        "tools": [(t["name"], json.loads(t["arguments"])) for t in tools],
    }


def _named(text: str) -> list[str]:
    return re.findall(r"\*\*(.+?)\*\*", text)


def _cards_are_the_list(turn: dict) -> None:
    """Every product the answer names has its card, and every card is named."""
    assert set(_named(turn["text"])) == {c["name"] for c in turn["cards"]}


# --- materials ------------------------------------------------------------------------------


async def test_a_fabric_is_searched_for_and_its_products_come_first() -> None:
    turn = await _ask("have you got linen shirts?")
    assert turn["tools"][0] == ("search_products", {"category": "shirts", "material": "linen"})
    assert [c["name"] for c in turn["cards"]] == ["Atelier Mira Linen Shirt"]
    _cards_are_the_list(turn)


async def test_a_fabric_with_a_garment_is_that_garment_not_the_fabrics_usual_one() -> None:
    turn = await _ask("a denim jacket please")
    assert turn["tools"][0][1] == {"category": "jackets", "material": "denim"}
    assert [c["name"] for c in turn["cards"]] == ["Atelier Mira Denim Jacket"]


async def test_a_fabric_none_of_the_garment_is_made_of_is_said_plainly() -> None:
    turn = await _ask("linen boots in 42")
    assert [args for _, args in turn["tools"]] == [
        {"category": "boots", "material": "linen", "size": "42"},
        {"category": "boots", "size": "42"},
    ]
    assert turn["text"].startswith("I couldn't find any linen boots in size 42 in stock")
    assert turn["cards"] and all(c["category"] == "boots" for c in turn["cards"])


async def test_a_fabric_the_catalog_never_names_is_said_plainly_not_searched() -> None:
    turn = await _ask("tweed jackets")
    assert turn["tools"][0][1] == {"category": "jackets"}
    assert turn["text"].startswith("We have nothing in tweed, so here are other jackets.")


# --- everyday words and sizes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        # Wellies are a kind of boot: rain boots.
        ("any wellies in 39?", {"query": "rain", "category": "boots", "size": "39"}),
        ("a woollen coat", {"category": "jackets", "material": "wool"}),
        ("white t-shirt dresses", {"category": "dresses", "colour": "white"}),
        ("dress pants in navy", {"category": "trousers", "colour": "navy"}),
        ("M black tees", {"category": "t-shirts", "colour": "black", "size": "M"}),
        ("jumpers, xl", {"category": "knitwear", "size": "XL"}),
    ],
)
async def test_everyday_words_and_sizes_anywhere_reach_the_search(text, arguments) -> None:
    turn = await _ask(text)
    assert turn["tools"][0] == ("search_products", arguments)


# --- availability per colour and size --------------------------------------------------------


async def test_a_size_on_a_product_page_is_answered_colour_by_colour() -> None:
    turn = await _ask("do you have this in L?", page=TRENCH)
    assert turn["tools"] == [("get_product", {"sku": "JK-0090"})]
    assert turn["text"] == (
        "Yes, the **Harbor Supply Trench Coat** is in stock in size L: 13 in red; not in black."
    )


async def test_a_size_after_talking_about_one_colour_is_answered_for_that_colour() -> None:
    history = [
        {
            "user": "do you have this in black?",
            "assistant": "Yes, the **Harbor Supply Trench Coat** comes in black, in sizes "
            "XS, S, M and XL.",
            "skus": ["JK-0090"],
        }
    ]
    turn = await _ask("in L?", page=TRENCH, history=history)
    assert turn["tools"] == [("get_product", {"sku": "JK-0090", "colour": "black"})]
    assert turn["text"].startswith(
        "Sorry, the **Harbor Supply Trench Coat** isn't in stock in size L in black."
    )
    assert "13" not in turn["text"]


async def test_a_disliked_colour_is_never_counted_nor_offered(live_memory, signed_in) -> None:
    cookie = signed_in
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I can't stand yellow")
        await chat.send({"type": "close", "session_id": first[0]["session_id"]})
        await chat.events_until("closed")
        turn = _turn(await chat.turn("do you have this in L?", page=WRAP_DRESS))
    assert turn["text"] == (
        "Yes, the **Loom & Lane Wrap Midi Dress** is in stock in size L: 12 in pink; 18 in red."
    )


# --- similar and cheaper --------------------------------------------------------------------


@pytest.mark.parametrize("page", [TRENCH, CREW_TEE])
async def test_something_similar_is_the_same_category_near_in_price_never_itself(page) -> None:
    turn = await _ask("Show me something similar", page=page)
    name, arguments = turn["tools"][0]
    category = {"JK-0090": "jackets", "TS-0001": "t-shirts"}[page["sku"]]
    assert name == "search_products" and arguments["category"] == category
    cards = turn["cards"]
    assert len(cards) == 4 and all(c["category"] == category for c in cards)
    assert page["sku"] not in {c["sku"] for c in cards}
    price = {"JK-0090": 78.95, "TS-0001": 23.00}[page["sku"]]
    gaps = [abs(c["price_eur"] - price) for c in cards]
    assert gaps == sorted(gaps)
    assert "We have nothing described" not in turn["text"]
    _cards_are_the_list(turn)


async def test_like_this_but_cheaper_is_cheaper_and_never_the_product_itself() -> None:
    turn = await _ask("something like this but cheaper", page=TRENCH)
    assert turn["tools"][0][1] == {"category": "jackets", "max_price": 78.94}
    assert all(c["category"] == "jackets" and c["price_eur"] < 78.95 for c in turn["cards"])
    assert "Harbor Supply Trench Coat" not in turn["text"]
    assert "JK-0090" not in {c["sku"] for c in turn["cards"]}
    _cards_are_the_list(turn)


# --- comparisons ----------------------------------------------------------------------------

TWO_TEES = [
    {
        "user": "t-shirts",
        "assistant": "Here are 2 t-shirts:\n\n- **Vela Crew Tee** — light.\n- "
        "**Fjord & Pine Pocket Tee** — slim.",
        "skus": ["TS-0001", "TS-0002"],
    }
]


async def test_which_is_cheaper_of_two_shown_products_names_the_cheaper_from_the_catalog() -> None:
    turn = await _ask("which is cheaper, the crew tee or the pocket tee?", history=TWO_TEES)
    assert turn["tools"] == [
        ("get_product", {"sku": "TS-0001"}),
        ("get_product", {"sku": "TS-0002"}),
    ]
    assert turn["text"].startswith(
        "The **Fjord & Pine Pocket Tee** is cheaper: €15.00 against €23.00 for the "
        "**Vela Crew Tee** (€8.00 less)."
    )
    assert (
        "What differs: brand (Vela and Fjord & Pine), colours and sizes in stock." in turn["text"]
    )
    _cards_are_the_list(turn)


async def test_products_not_in_view_are_found_by_name_and_compared() -> None:
    turn = await _ask("compare the Vela Crew Tee with the Kestrel Mom Jeans")
    assert [name for name, _ in turn["tools"]] == ["search_products", "search_products"]
    assert turn["text"].startswith("The **Vela Crew Tee** is cheaper: €23.00 against €113.00")
    assert "one is t-shirts, the other jeans" in turn["text"]
    assert {c["sku"] for c in turn["cards"]} == {"TS-0001", "JN-0045"}


async def test_what_the_catalog_cannot_tell_is_said_plainly_with_both_shown() -> None:
    turn = await _ask("which is warmer, the first or the second?", history=TWO_TEES)
    assert turn["text"].startswith("I can't compare those on which is warmer")
    assert {c["sku"] for c in turn["cards"]} == {"TS-0001", "TS-0002"}


# --- remembered preferences as defaults -----------------------------------------------------


async def test_a_remembered_brand_is_a_default_any_brand_lifts(live_memory, signed_in) -> None:
    cookie = signed_in
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I love Vela")
        await chat.send({"type": "close", "session_id": first[0]["session_id"]})
        await chat.events_until("closed")
        usual = _turn(await chat.turn("t-shirts", until=("memory.added",)))
        lifted = _turn(await chat.turn("t-shirts from any brand", until=("memory.added",)))
    assert usual["tools"][0][1] == {"category": "t-shirts", "brand": "Vela"}
    assert "from Vela; say “any brand” to widen it." in usual["text"]
    assert lifted["tools"][0][1] == {"category": "t-shirts"}
    assert len({c["brand"] for c in lifted["cards"]}) > 1
    assert "As you asked, I looked at every brand, not only Vela." in lifted["text"]


# --- every suggestion the panel can offer ---------------------------------------------------

TASTE = Preferences(size="M", shoe_size="42", colour="blue", avoided_colour="yellow", brand="Vela")


def _offered() -> list[tuple[str, dict | None]]:
    """Every prompt the panel can suggest, with the page it is suggested on."""
    offered: dict[str, dict | None] = {}
    for preferences in (TASTE, Preferences(size="M", avoided_colour="yellow"), Preferences()):
        for product_sku in ("TS-0001", "SN-0098"):
            product = {"sizes_in_stock": ["42"] if product_sku.startswith("SN") else ["M"]}
            page = {"kind": "product", "sku": product_sku}
            for text in suggestions_compose(preferences=preferences, product=product):
                offered.setdefault(text, page)
        for text in suggestions_compose(preferences=preferences, category="jeans"):
            offered.setdefault(text, {"kind": "catalog", "filters": {"category": "jeans"}})
        for text in suggestions_compose(preferences=preferences):
            offered.setdefault(text, None)
    for text in (
        *DEFAULT_SUGGESTIONS,
        "Show me something similar",
        "Which sizes does this come in?",
    ):
        offered.setdefault(text, {"kind": "product", "sku": "TS-0001"})
    return list(offered.items())


@pytest.mark.parametrize(("text", "page"), _offered())
async def test_every_suggestion_the_panel_offers_is_answered_from_the_catalog(text, page) -> None:
    turn = await _ask(text, page=page) if page else await _ask(text)
    assert turn["tools"], text
    name, arguments = turn["tools"][0]
    if name == "search_products":
        assert set(arguments) - {"query", "limit"}, f"{text!r} searched for nothing: {arguments}"
        assert turn["cards"], f"{text!r} showed nothing"
        _cards_are_the_list(turn)
    else:
        assert (name, arguments["sku"]) == ("get_product", page["sku"])
    for failure in ("We have nothing described", "Which product do you mean", "I can only help"):
        assert failure not in turn["text"], (text, turn["text"])


async def test_colours_and_sizes_offered_leave_out_a_disliked_colour() -> None:
    notes = ["[fact · stated 2026-03-01] The shopper dislikes pink."]
    page = {"kind": "product", "product": product_detail("DR-0060")}
    messages = conversation("which colours and sizes does this come in?", notes=notes, page=page)
    call = ("get_product", {"sku": "DR-0060"})
    text = (await answer_after(messages, call, product_detail("DR-0060"))).content
    assert "It comes in red and yellow." in text
    assert "pink" not in text
