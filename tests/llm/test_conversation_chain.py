"""Whole conversations over the real catalog: the text, the cards and the tool line agree."""

from __future__ import annotations

import json
import re

import pytest

from llm.cards import MAX_CARDS
from tests.support.shopping import Answer, Shopper

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _named(text: str) -> list[str]:
    return re.findall(r"\*\*([^*]+)\*\*", text)


def _sizes_said(text: str) -> set[str]:
    said = re.search(r"sizes ((?:[A-Z0-9]+, )*[A-Z0-9]+(?: and [A-Z0-9]+)?)", text)
    return set(re.findall(r"\b[A-Z]{1,3}\b|\b\d{2}\b", said.group(1))) if said else set()


def _consistent(answer: Answer) -> None:
    """The text talks about exactly the products on the cards, and counts as the tool did."""
    assert len(answer.products) <= MAX_CARDS
    assert list(dict.fromkeys(_named(answer.text))) == [card["name"] for card in answer.products]
    counted = re.match(r"Here are (\d+) (?:more )?of (?:the )?(\d+)", answer.text)
    if counted:
        shown, total = counted.groups()
        assert answer.tools[-1].outcome.summary == f"{shown} of {total} products"
        assert int(shown) == len(answer.products)
    assert "".join(answer.tokens) == answer.text


async def test_list_then_more_then_the_black_one_then_in_m_then_cheaper() -> None:
    shopper = Shopper()
    listed = await shopper.ask("show me t-shirts under 24")
    _consistent(listed)
    assert listed.text.startswith("Here are 4 of 10 t-shirts under €24:") and listed.more

    more = await shopper.ask("show more")
    _consistent(more)
    assert json.loads(more.tools[-1].arguments)["offset"] == MAX_CARDS
    assert not {c["sku"] for c in more.products} & {c["sku"] for c in listed.products}
    assert more.text.startswith("Here are 4 more of the 10 t-shirts under €24:") and more.more

    last = await shopper.ask("more please")
    _consistent(last)
    assert json.loads(last.tools[-1].arguments)["offset"] == 8
    assert last.text.startswith("Here are 2 more of the 10 t-shirts under €24:")
    assert not last.more and "show more" not in last.text
    assert [(c["name"], c["colours"]) for c in last.products] == [
        ("Vela Crew Tee", ["black"]),
        ("Vela Henley Tee", ["black", "red"]),
    ]

    black = await shopper.ask("the black one")
    _consistent(black)
    (card,) = black.products
    assert card["name"] == "Vela Crew Tee" and card["colours"] == ["black"]
    assert black.text.startswith("The **Vela Crew Tee** is the black one")
    assert _sizes_said(black.text) == set(card["sizes_in_stock"])

    in_m = await shopper.ask("in M?")
    _consistent(in_m)
    assert json.loads(in_m.tools[-1].arguments) == {"sku": "TS-0001", "colour": "black"}
    (card_m,) = in_m.products
    assert card_m == card, "the card must not contradict the one shown a moment earlier"
    assert "M" not in card_m["sizes_in_stock"]
    assert in_m.text.startswith("Sorry, the **Vela Crew Tee** isn't in stock in size M in black.")
    assert _sizes_said(in_m.text) == set(card_m["sizes_in_stock"])

    cheaper = await shopper.ask("cheaper")
    _consistent(cheaper)
    arguments = json.loads(cheaper.tools[-1].arguments)
    assert arguments == {"category": "t-shirts", "colour": "black", "size": "M", "max_price": 22.99}
    assert cheaper.products
    # Cheaper than what the shopper looked at, in their words, not a limit a cent below it.
    assert re.match(
        r"Here are \d+ of \d+ black t-shirts in size M cheaper than the Vela Crew Tee \(€23\.00\):"
        r"|I found \d+ black t-shirts in size M cheaper than the Vela Crew Tee \(€23\.00\):"
        r"|I found one match for black t-shirts in size M cheaper than the Vela Crew Tee \(€23\.00\):",
        cheaper.text,
    ), cheaper.text
    assert "22.99" not in cheaper.text
    for found in cheaper.products:
        assert found["price_eur"] < 23 and found["colours"] == ["black"]
        assert "M" in found["sizes_in_stock"]


async def test_signed_out_cheaper_please_follows_the_search_before() -> None:
    shopper = Shopper()
    jeans = await shopper.ask("show me black jeans")
    _consistent(jeans)
    cheapest = min(card["price_eur"] for card in jeans.products)
    cheaper = await shopper.ask("cheaper please")
    assert "Which product do you mean?" not in cheaper.text
    arguments = json.loads(cheaper.tools[-1].arguments)
    assert arguments["category"] == "jeans" and arguments["colour"] == "black"
    assert arguments["max_price"] == round(cheapest - 0.01, 2)


async def test_cheaper_than_the_cheapest_says_so_and_show_more_goes_on_with_the_list() -> None:
    shopper = Shopper()
    jeans = await shopper.ask("show me black jeans")
    cheapest = min(jeans.products, key=lambda card: card["price_eur"])
    cheaper = await shopper.ask("cheaper please")
    _consistent(cheaper)
    assert not cheaper.products
    # Asked for cheaper, the answer is the cheapest's price, not a limit one cent below it,
    # nor an offer of a higher budget.
    assert cheaper.text.startswith(
        f"The {cheapest['name']}, at €{cheapest['price_eur']:.2f}, is already the cheapest "
        "of the black jeans in stock."
    )
    assert "higher budget" not in cheaper.text and "€52.99" not in cheaper.text
    more = await shopper.ask("show more")
    assert json.loads(more.tools[-1].arguments) == {
        "category": "jeans",
        "colour": "black",
        "offset": len(jeans.products),
    }
    assert more.text.startswith("That's all of them: there are no more black jeans.")


async def test_on_a_product_page_this_in_m_is_about_that_product() -> None:
    answer = await Shopper().ask(
        "do you have this in M?", page={"kind": "product", "sku": "TS-0002"}
    )
    _consistent(answer)
    assert [tool.name for tool in answer.tools] == ["get_product"]
    assert answer.text.startswith("Yes, the **Fjord & Pine Pocket Tee** is in stock in size M")
    assert [card["sku"] for card in answer.products] == ["TS-0002"]


async def test_on_a_catalog_page_cheaper_ones_keep_its_filters() -> None:
    page = {"kind": "catalog", "filters": {"category": "jeans", "colour": "blue"}}
    answer = await Shopper().ask("show me cheaper ones", page=page)
    _consistent(answer)
    assert json.loads(answer.tools[-1].arguments) == {"category": "jeans", "colour": "blue"}
    prices = [card["price_eur"] for card in answer.products]
    assert prices == sorted(prices) and all(c["colours"] == ["blue"] for c in answer.products)


async def test_cheaper_in_another_colour_never_calls_the_product_the_cheapest_of_that_colour() -> (
    None
):
    # The Mistral Heavyweight Tee comes in black, pink and red: it is no blue t-shirt.
    answer = await Shopper().ask(
        "is it cheaper in blue?", page={"kind": "product", "sku": "TS-0007"}
    )
    assert answer.tools[-1].outcome.summary == "0 products"
    assert "already the cheapest" not in answer.text
    # The page's product is "this one": named, its card would stand under the answer as
    # if it were the cheaper one.
    assert answer.text.startswith(
        "I couldn't find any blue t-shirts cheaper than this one (€18.95)"
    )
    assert answer.products == []
