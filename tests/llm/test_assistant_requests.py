"""Shopper utterances and the `search_products` call the offline model makes for each."""

from __future__ import annotations

import pytest

from assistant.turn.tools import tool_schemas
from tests.support.shopping import first_reply, first_tool_call

SEARCH = "search_products"

UTTERANCES: list[tuple[str, dict]] = [
    ("Show me black t-shirts", {"category": "t-shirts", "colour": "black"}),
    ("any tees in navy?", {"category": "t-shirts", "colour": "navy"}),
    (
        "I'm looking for a white shirt in size M",
        {"category": "shirts", "colour": "white", "size": "M"},
    ),
    ("jeans under 80 euros", {"category": "jeans", "max_price": 80}),
    ("do you have trainers below €50?", {"category": "sneakers", "max_price": 50}),
    ("sneakers in size 42", {"category": "sneakers", "size": "42"}),
    ("size 42 shoes, boots please", {"category": "boots", "size": "42"}),
    ("a warm coat for winter", {"query": "winter warm", "category": "jackets"}),
    ("I need a jumper, medium", {"category": "knitwear", "size": "M"}),
    ("grey sweater in XL", {"category": "knitwear", "colour": "grey", "size": "XL"}),
    ("chinos less than 100", {"query": "chino", "category": "trousers", "max_price": 100}),
    ("pants, max 60", {"category": "trousers", "max_price": 60}),
    ("Dresses for a wedding", {"query": "wedding", "category": "dresses"}),
    ("something for the office under 90", {"query": "office", "max_price": 90}),
    ("hiking boots in 44", {"query": "hiking", "category": "boots", "size": "44"}),
    ("running shoes", {"query": "running", "category": "sneakers"}),
    ("sandals for the beach", {"query": "beach", "category": "sandals"}),
    ("a party dress, red", {"query": "party", "category": "dresses", "colour": "red"}),
    ("travel trousers in olive", {"query": "travel", "category": "trousers", "colour": "olive"}),
    (
        "summer dresses not yellow",
        {"query": "summer", "category": "dresses", "exclude_colours": ["yellow"]},
    ),
    ("t-shirts, no yellow", {"category": "t-shirts", "exclude_colours": ["yellow"]}),
    ("I hate yellow, show me tees", {"category": "t-shirts", "exclude_colours": ["yellow"]}),
    ("knitwear in anything but black", {"category": "knitwear", "exclude_colours": ["black"]}),
    ("skirts, but not pink or red", {"category": "skirts", "exclude_colours": ["pink", "red"]}),
    ("Kestrel jackets", {"category": "jackets", "brand": "Kestrel"}),
    ("anything from Fjord and Pine?", {"brand": "Fjord & Pine"}),
    (
        "Loom & Lane dresses under 120",
        {"category": "dresses", "brand": "Loom & Lane", "max_price": 120},
    ),
    ("Atelier Mira shirts in S", {"category": "shirts", "brand": "Atelier Mira", "size": "S"}),
    ("navy blue jeans", {"category": "jeans", "colour": "navy"}),
    ("gray hoodie-free knitwear", {"category": "knitwear", "colour": "grey"}),
    (
        "beige trousers, size L, up to 70 euros",
        {"category": "trousers", "colour": "beige", "size": "L", "max_price": 70},
    ),
    ("green skirt in XS", {"category": "skirts", "colour": "green", "size": "XS"}),
    ("brown boots size 39", {"category": "boots", "colour": "brown", "size": "39"}),
    ("Show me 3 white sneakers", {"category": "sneakers", "colour": "white", "limit": 3}),
    ("blazer for a job interview", {"query": "interview blazer", "category": "jackets"}),
    (
        "pink dress for a summer wedding, no more than 150",
        {"query": "summer wedding", "category": "dresses", "colour": "pink", "max_price": 150},
    ),
    ("Vela tees in large", {"category": "t-shirts", "brand": "Vela", "size": "L"}),
    ("Tern sandals in 38", {"category": "sandals", "brand": "Tern", "size": "38"}),
    (
        "cardigan, extra large, no black",
        {"query": "cardigan", "category": "knitwear", "size": "XL", "exclude_colours": ["black"]},
    ),
    ("I want jeans in blue, €60 max", {"category": "jeans", "colour": "blue", "max_price": 60}),
    ("Any yellow t-shirts?", {"category": "t-shirts", "colour": "yellow"}),
    ("jackets for rainy days", {"query": "rain", "category": "jackets"}),
    ("Northwind boots for hiking", {"query": "hiking", "category": "boots", "brand": "Northwind"}),
    (
        "shirts that aren't white, size XXL",
        {"category": "shirts", "exclude_colours": ["white"], "size": "XXL"},
    ),
    ("do you sell hats?", {"query": "hats"}),
    # "sizes" holds no size S, and "I'm" no M.
    ("which sizes do your jeans come in?", {"category": "jeans"}),
    ("I'm after jeans", {"category": "jeans"}),
    # The catalog's own words no filter takes reach the search as its words.
    ("a quilted jacket", {"query": "quilted", "category": "jackets"}),
    ("chelsea boots in black", {"query": "chelsea", "category": "boots", "colour": "black"}),
    ("waterproof boots in size 40", {"query": "waterproof", "category": "boots", "size": "40"}),
    # A shoe size in another system is the shop's EU size; a waist filters no letter size.
    ("boots in a UK 8", {"category": "boots", "size": "42"}),
    ("sneakers, US 9", {"category": "sneakers", "size": "42"}),
    ("jeans in a 34 waist", {"category": "jeans", "size": "L"}),
]


@pytest.mark.parametrize(("utterance", "arguments"), UTTERANCES)
async def test_product_request_becomes_search_call(utterance: str, arguments: dict) -> None:
    assert await first_tool_call(utterance) == (SEARCH, arguments)


@pytest.mark.parametrize(
    "utterance",
    ["hi there", "hello!", "thanks a lot", "what's the capital of France?", "something nice"],
)
async def test_small_talk_is_answered_without_tools(utterance: str) -> None:
    assert await first_tool_call(utterance) is None


@pytest.mark.parametrize(
    ("said", "noted"),
    [
        ("I'm a size M", "Noted: size M."),
        ("I hate yellow", "Noted: no yellow."),
        ("I'm a size M and I hate yellow", "Noted: size M and no yellow."),
        ("my budget is 60 euros", "Noted: a budget of up to €60."),
    ],
)
async def test_a_preference_said_on_its_own_is_acknowledged_not_searched(said, noted) -> None:
    # Nothing on screen to apply it to: listing the whole catalog in size M answers nothing.
    message = await first_reply(said)
    assert message.tool_calls is None
    assert message.content.startswith(noted)
    assert "What are you looking for?" in message.content


@pytest.mark.parametrize("said", ["I'm a size M, show me jeans", "I'm looking for jeans in M"])
async def test_a_preference_with_a_request_still_searches(said) -> None:
    assert await first_tool_call(said) == ("search_products", {"category": "jeans", "size": "M"})


# Another shop's vocabulary: the offline model learns it from the schema it is sent.
OTHER_SHOP = tool_schemas(
    vocabulary={
        "categories": ["tops", "coats", "jackets", "hoodies", "shoes"],
        "colours": ["purple", "cream", "beige", "black"],
        "sizes": ["S", "M", "L", "38", "39", "40"],
        "brands": ["Acme Outfitters"],
        "materials": ["hemp", "wool", "leather"],
    },
    with_memory=False,
)


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("a hemp hoodie in lilac", {"category": "hoodies", "material": "hemp", "colour": "purple"}),
        ("a woollen coat", {"category": "coats", "material": "wool"}),
        ("a bomber jacket", {"query": "bomber", "category": "jackets"}),
        ("leather loafers in 39", {"category": "shoes", "material": "leather", "size": "39"}),
        ("cream tank tops, medium", {"category": "tops", "colour": "cream", "size": "M"}),
        ("Acme Outfitters sweatshirts", {"category": "hoodies", "brand": "Acme Outfitters"}),
        ("linen coats", {"category": "coats"}),
    ],
)
async def test_another_shops_vocabulary_is_learnt_from_its_tool_schema(text, arguments) -> None:
    assert await first_tool_call(text, tools=OTHER_SHOP, signed_in=False) == (
        SEARCH,
        arguments,
    )


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("jeens in black", {"category": "jeans", "colour": "black"}),
        ("trowsers, size M", {"category": "trousers", "size": "M"}),
        ("anything cheaper than €30?", {"max_price": 30}),
    ],
)
async def test_a_typo_in_a_garment_word_and_a_budget_said_as_cheaper(text, arguments) -> None:
    assert await first_tool_call(text) == (SEARCH, arguments)


async def test_an_ordinary_word_is_not_read_as_a_garment_through_a_typo() -> None:
    assert await first_tool_call("show me something for the coast") == (SEARCH, {"query": "coast"})
