"""Conversations the offline model follows: each replayed turn by turn, as the pipeline sends
them, with the real catalog tools, and checked as `score_conversations` checks them."""

from __future__ import annotations

import pytest

from assistant.management.commands.score_conversations import conversation_score
from shop.selectors import catalog_vocabulary

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _turn(text: str, expect: dict, *, act: str = "request", visit: int = 1) -> dict:
    return {"visit": visit, "text": text, "page": None, "act": act, "expect": expect}


def _replay(*turns: dict, facts: list[str] | None = None, signed_in: bool = True) -> list:
    conversation = {"id": "t", "signed_in": signed_in, "facts": facts or [], "turns": turns}
    return conversation_score(conversation, vocabulary=catalog_vocabulary())


def _misses(results: list) -> list[str]:
    return [f"{r.turn['text']!r}: {'; '.join(r.misses)}" for r in results if r.misses]


def test_a_shoe_size_in_uk_terms_is_remembered_as_the_shops_eu_size() -> None:
    results = _replay(
        _turn("I wear UK 8 shoes", {}, act="statement"),
        _turn("boots", {"search": {"category": "boots", "size": "42"}}),
        _turn("sandals", {"search": {"category": "sandals", "size": "42"}}, visit=2),
    )
    assert _misses(results) == []


def test_the_catalogs_own_words_find_the_product_the_shop_page_finds() -> None:
    results = _replay(
        _turn("a quilted jacket", {"search": {"category": "jackets"}, "words": ["quilted"]}),
        _turn("chelsea boots", {"search": {"category": "boots"}, "words": ["chelsea"]}),
        # One product in view: a bare colour asks about it.
        _turn("in black?", {"refers_to": {"name": "Chelsea"}, "no_search": True}),
    )
    assert _misses(results) == []


def test_a_statement_is_said_back_in_the_shops_terms_and_nothing_is_searched() -> None:
    results = _replay(
        _turn("I'm a UK 8 in shoes", {"no_search": True, "answer_has": ["EU 42"]}),
        _turn("my budget is 100 pounds", {"no_search": True, "answer_has": ["euros"]}),
        _turn("I'm a size 12 in dresses", {"no_search": True, "answer_has": ["M here"]}),
    )
    assert _misses(results) == []


def test_a_statement_with_a_request_is_said_back_and_the_request_served() -> None:
    results = _replay(
        _turn(
            "I'm a UK 8, show me boots",
            {"search": {"category": "boots", "size": "42"}, "answer_has": ["Noted: UK 8"]},
        ),
    )
    assert _misses(results) == []


def test_a_lifted_default_stays_lifted_for_the_rest_of_the_visit() -> None:
    colour = _replay(
        _turn("dresses", {"search": {"category": "dresses", "exclude_colours": ["red"]}}),
        _turn("red is fine again", {"search": {"category": "dresses"}, "lifts": ["colour/red"]}),
        _turn("skirts", {"search": {"category": "skirts"}}),
        facts=["colour/red=dislike"],
    )
    brand = _replay(
        _turn("jackets", {"search": {"category": "jackets", "brand": "Vela"}}),
        _turn("any brand is fine", {"search": {"category": "jackets"}, "lifts": ["brand"]}),
        _turn("shirts", {"search": {"category": "shirts"}}),
        facts=["brand/vela=like"],
    )
    budget = _replay(
        _turn("t-shirts", {"search": {"category": "t-shirts", "max_price": 50}}),
        _turn("price doesn't matter anymore", {"search": {"category": "t-shirts"}}),
        facts=["budget=50 EUR"],
    )
    assert _misses(colour) == [] and _misses(brand) == [] and _misses(budget) == []


def test_two_shown_products_pointed_at_are_compared_and_a_follow_up_keeps_to_them() -> None:
    results = _replay(
        _turn("knitwear", {"search": {"category": "knitwear"}}),
        _turn("the second and third", {"refers_to": {"positions": [2, 3]}, "no_search": True}),
        _turn("which is warmer?", {"refers_to": {"positions": [1, 2]}, "no_search": True}),
        _turn("sneakers", {"search": {"category": "sneakers"}}),
        _turn("these two", {"no_search": True}),
    )
    assert _misses(results) == []
    assert "the catalog doesn't say" in results[2].answer


def test_the_cheapest_of_a_list_is_of_all_its_matches_and_of_two_compared_of_those() -> None:
    results = _replay(
        _turn("sandals", {"search": {"category": "sandals"}}),
        # A list is a page of its search: the cheapest of all of them, price said.
        _turn(
            "which one is the cheapest?",
            {"search": {"category": "sandals"}, "sort": "price_asc", "answer_has": ["€27.00"]},
        ),
        _turn("compare the first and second", {"no_search": True}, act="comparison"),
        _turn("the cheaper of the two", {"no_search": True}, act="reference"),
        _turn("the most expensive boots", {"search": {"category": "boots"}, "sort": "price_desc"}),
        _turn("the cheapest trousers", {"search": {"category": "trousers"}, "sort": "price_asc"}),
    )
    assert _misses(results) == []


def test_they_of_the_one_product_in_view_is_that_product() -> None:
    results = _replay(
        _turn("chelsea boots", {"search": {"category": "boots"}, "words": ["chelsea"]}),
        _turn("how much are they?", {"refers_to": {"name": "Chelsea"}, "answer_has": ["341"]}),
    )
    assert _misses(results) == []


def test_a_memory_question_by_kind_answers_from_the_facts_of_that_kind() -> None:
    results = _replay(
        _turn("what's my budget?", {"answer_has": ["50"], "answer_lacks": ["haven't told"]}),
        _turn("which materials do I avoid?", {"answer_has": ["wool"]}),
        _turn("what's my shoe size?", {"answer_has": ["UK 8", "EU 42"]}),
        facts=["budget=50 EUR", "material/wool=dislike"],
    )
    # The shoe size is stated as the judge keeps it, in the shopper's own system.
    said = _replay(
        _turn("I wear UK 8 shoes", {}, act="statement"),
        _turn("what's my shoe size?", {"answer_has": ["UK 8", "EU 42"]}),
    )
    assert _misses(results[:2]) == [] and _misses(said) == []


def test_show_more_pages_on_without_repeats_however_it_is_said() -> None:
    results = _replay(
        _turn("jackets", {"search": {"category": "jackets"}}),
        _turn("show me more jackets", {"new_results": True, "no_search": False}),
        _turn("and more", {"new_results": True}),
    )
    assert _misses(results) == []


def test_show_more_skips_what_another_search_of_the_visit_showed() -> None:
    results = _replay(
        _turn("henley tee", {"search": {"category": "t-shirts"}, "words": ["henley"]}),
        _turn("long sleeve tee", {"search": {"category": "t-shirts"}}),
        _turn("boxy tee", {"search": {"category": "t-shirts"}, "words": ["boxy"]}),
        _turn("any tees, show me everything", {"search": {"category": "t-shirts"}}),
        _turn("more", {"new_results": True}, act="more"),
        _turn("next", {"new_results": True}, act="more"),
    )
    assert _misses(results) == []
    assert all(r.answer.count("**") == 8 for r in results[3:])  # four products each


def test_a_question_about_something_the_shop_lacks_is_never_the_list_in_view() -> None:
    results = _replay(
        _turn("skirts", {"search": {"category": "skirts"}}),
        _turn("do you have any umbrellas?", {"none": True, "answer_lacks": ["**"]}),
    )
    assert _misses(results) == []


def test_a_message_like_the_banks_out_of_scope_examples_is_no_search() -> None:
    results = _replay(
        _turn("t-shirts", {"search": {"category": "t-shirts"}}),
        # "write" is one letter from "white": the slot readers alone read a colour here.
        _turn("can you write me a poem?", {"no_search": True, "answer_has": ["only help"]}),
        _turn("white please", {"search": {"category": "t-shirts", "colour": "white"}}),
    )
    assert _misses(results) == []


def test_cheap_without_a_figure_lists_the_lowest_prices_first() -> None:
    results = _replay(
        _turn("cheap jeans", {"search": {"category": "jeans"}, "answer_has": ["cheapest first"]}),
        _turn("not too pricey boots", {"sort": "price_asc", "answer_has": ["cheapest first"]}),
    )
    assert _misses(results) == []


def test_something_the_shop_does_not_sell_is_said_so_even_with_a_remembered_dislike() -> None:
    # The remembered dislike is sent as a filter: it is no category to offer instead.
    results = _replay(
        _turn("do you sell swimwear?", {"none": True}, act="catalog_question"),
        facts=["colour/yellow=dislike", "size/shoes=42"],
    )
    assert _misses(results) == []
    assert "We don't sell anything like" in results[0].answer


def test_a_product_shown_earlier_is_named_by_a_word_of_its_own() -> None:
    results = _replay(
        _turn("boots", {"search": {"category": "boots"}}),
        _turn("chelsea boots", {"search": {"category": "boots"}, "words": ["chelsea"]}),
        _turn("hiking boots", {"search": {"category": "boots"}, "words": ["hiking"]}),
        # The chelsea boots are two answers back, named by their own word.
        _turn(
            "how much is the chelsea?",
            {"refers_to": {"name": "Fjord & Pine Chelsea Boots"}, "no_search": True},
        ),
        _turn(
            "which is more formal, the chelsea or the hiking boots?",
            {
                "refers_to": {
                    "name": ["Fjord & Pine Chelsea Boots", "Orchard Street Hiking Boots"]
                },
                "no_search": True,
                "answer_has": ["doesn't say"],
            },
            act="comparison",
        ),
        # Without "the", a word of a shown product's name is a new search.
        _turn("any chelsea boots under 400?", {"search": {"category": "boots", "max_price": 400}}),
    )
    assert _misses(results) == []


def test_the_other_one_and_the_cheaper_of_the_two() -> None:
    results = _replay(
        _turn("a quilted or a harrington jacket", {"search": {"category": "jackets"}}),
        _turn("the cheaper of the two", {"refers_to": {"name": "Harrington"}, "no_search": True}),
        _turn(
            "and the other one?",
            {"refers_to": {"name": "Mistral Quilted Liner Jacket"}, "no_search": True},
        ),
        _turn(
            "compare it with the harrington",
            {
                "refers_to": {"name": ["Mistral Quilted Liner Jacket", "Vela Harrington Jacket"]},
                "no_search": True,
            },
            act="comparison",
        ),
    )
    assert _misses(results) == []


def test_words_no_product_has_are_said_plainly_and_what_there_is_named_as_instead() -> None:
    results = _replay(
        # Running shoes, yes; socks, no: the answer says so before what it shows.
        _turn(
            "do you sell running socks?",
            {
                "none": True,
                "answer_has": ["nothing described as “socks”"],
                "answer_lacks": ["matching “running socks”"],
            },
            act="catalog_question",
        ),
        # No jeans are called comfy: said, and the jeans there are offered as other ones.
        _turn("comfy jeans", {"none": True, "answer_has": ["Instead"]}),
    )
    assert _misses(results) == []


def test_a_question_about_what_the_shopper_said_is_answered_by_its_kind() -> None:
    facts = ["size/tops=M", "size/shoes=43", "budget=150", "colour/yellow=dislike"]
    results = _replay(
        _turn("what did I say my budget was?", {"no_search": True, "answer_has": ["150"]}),
        _turn("which colours don't I like?", {"no_search": True, "answer_has": ["yellow"]}),
        _turn("and shoe size?", {"no_search": True, "answer_has": ["43"]}),
        _turn("what's my tops size on file?", {"no_search": True, "answer_has": ["M"]}),
        facts=facts,
    )
    assert _misses(results) == []
    # A bare kind is a memory question only right after one: here it asks of the list.
    asked = _replay(
        _turn(
            "t-shirts",
            {"search": {"category": "t-shirts", "size": "M", "exclude_colours": ["yellow"]}},
        ),
        _turn("colours?", {"no_search": True, "answer_lacks": ["you dislike"]}),
        facts=["size/tops=M", "colour/yellow=dislike"],
    )
    assert [r.turn["text"] for r in asked if r.misses] == []


def test_what_memory_keeps_as_lifted_is_lifted_in_the_chat() -> None:
    results = _replay(
        _turn("boots", {"search": {"category": "boots", "exclude_colours": ["brown"]}}),
        _turn(
            "brown's fine again actually",
            {"search": {"category": "boots"}, "lifts": ["colour/brown"]},
            act="lift",
        ),
        _turn("sandals", {"search": {"category": "sandals"}}),
        facts=["colour/brown=dislike"],
    )
    assert _misses(results) == []


def test_forgetting_a_budget_lifts_it_and_erases_nothing() -> None:
    results = _replay(
        _turn("boots", {"search": {"category": "boots", "max_price": 100}}),
        _turn(
            "ok forget my budget altogether, money's not an issue",
            {"search": {"category": "boots"}, "answer_lacks": ["Delete"], "lifts": ["budget"]},
            act="lift",
        ),
        facts=["budget=100"],
    )
    assert _misses(results) == []


def test_a_quality_the_catalog_does_not_record_is_said_so_of_a_list() -> None:
    results = _replay(
        _turn("jackets", {"search": {"category": "jackets"}}),
        _turn(
            "which of those is warmer?",
            {"no_search": True, "answer_has": ["doesn't record"]},
            act="comparison",
        ),
    )
    assert _misses(results) == []


def test_a_statement_and_a_request_in_two_clauses_are_both_served() -> None:
    results = _replay(
        _turn(
            "hi! I'm a UK 5 in shoes and I'm after sandals",
            {"search": {"category": "sandals", "size": "38"}, "answer_has": ["UK 5"]},
        ),
        _turn("I'm usually an XS but sometimes S in knits", {"no_search": True}, act="statement"),
    )
    assert _misses(results) == []


def test_show_more_of_a_list_already_complete_says_so_and_counts_as_understood() -> None:
    results = _replay(
        _turn("a quilted jacket", {"search": {"category": "jackets"}, "words": ["quilted"]}),
        # The words asked for still hold when nothing more has them.
        _turn("show more", {"new_results": True, "words": ["quilted"]}, act="more"),
    )
    assert _misses(results) == []
    assert "no more" in results[1].answer.lower() or "that's all" in results[1].answer.lower()


def test_a_budget_in_pounds_converts_at_the_shops_rate_and_says_it(settings) -> None:
    settings.SHOP_EXCHANGE_RATES = {"GBP": 1.2}
    results = _replay(
        _turn("sandals", {"search": {"category": "sandals"}}),
        _turn(
            "nothing over 60 quid please",
            {
                "search": {"category": "sandals", "max_price": 72},
                "answer_has": ["60 GBP", "about 72 euros", "1 GBP = 1.2 EUR"],
            },
            act="refinement",
        ),
        # Said on its own, it is kept for the visit's next search, in euros.
        _turn("my budget is 50 pounds", {"no_search": True, "answer_has": ["about 60 euros"]}),
        _turn("boots", {"search": {"category": "boots", "max_price": 60}}),
    )
    assert _misses(results) == []


def test_a_budget_in_pounds_without_a_rate_is_said_back_and_never_read_as_euros(
    settings,
) -> None:
    settings.SHOP_EXCHANGE_RATES = {}
    results = _replay(
        _turn("sandals", {"search": {"category": "sandals"}}),
        _turn(
            "nothing over 60 quid please",
            {"search": {"category": "sandals"}, "answer_has": ["60 GBP", "exchange rate"]},
            act="refinement",
        ),
    )
    assert _misses(results) == []


def test_a_new_style_asked_for_replaces_the_fabric_asked_before() -> None:
    results = _replay(
        _turn("jackets", {"search": {"category": "jackets"}}),
        _turn("any wool ones?", {"search": {"category": "jackets", "material": "wool"}}),
        _turn("quilted?", {"search": {"category": "jackets"}, "words": ["quilted"]}),
    )
    assert _misses(results) == []


def test_a_colour_back_in_however_it_trails_off_is_acknowledged_and_kept_for_the_visit() -> None:
    results = _replay(
        _turn(
            "black's fine now i guess",
            {"no_search": True, "answer_has": ["include black"], "answer_lacks": ["only help"]},
            act="lift",
        ),
        _turn("show me tees", {"search": {"category": "t-shirts"}}),
        facts=["colour/black=dislike"],
    )
    assert _misses(results) == []


@pytest.mark.parametrize(
    ("pointer", "positions"),
    [
        ("#2", [2]),
        ("option 3", [3]),
        ("the 2nd", [2]),
        ("1st one pls", [1]),
        ("the top one", [1]),
        ("the bottom one", [4]),
        ("compare 1 and 3", [1, 3]),
        ("which is cheaper, 2 or 4", [2, 4]),
    ],
)
def test_a_place_in_the_list_written_short_or_by_number_points_at_it(pointer, positions) -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(pointer, {"refers_to": {"positions": positions}, "no_search": True}),
    )
    assert _misses(results) == []


def test_which_of_a_list_is_best_at_a_quality_the_catalog_lacks_is_said_plainly() -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(
            "which of these is the lightest",
            {"no_search": True, "answer_has": ["doesn't record"]},
            act="comparison",
        ),
        _turn("which is the comfiest?", {"no_search": True, "answer_has": ["doesn't record"]}),
    )
    assert _misses(results) == []


def test_is_a_shown_product_in_stock_is_answered_yes_or_no_with_what_is() -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(
            "is the last one in stock?",
            {"refers_to": {"positions": [4]}, "no_search": True, "answer_has": ["Yes,", "sizes"]},
            act="availability",
        ),
        _turn(
            "does the first one come in other colours",
            {
                "refers_to": {"name": "Harbor Supply Trench Coat"},
                "no_search": True,
                "answer_has": ["comes in"],
            },
            act="catalog_question",
        ),
    )
    assert _misses(results) == []


def test_a_bare_filter_said_of_a_list_narrows_it_and_a_statement_does_not() -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(
            "not black",
            {"search": {"category": "jackets", "exclude_colours": ["black"]}},
            act="refinement",
        ),
        _turn("also i really dont like yellow", {"no_search": True}, act="statement"),
    )
    assert _misses(results) == []


@pytest.mark.parametrize(
    ("asked", "order"),
    [
        ("sort by price", "price_asc"),
        ("price low to high", "price_asc"),
        ("high to low pls", "price_desc"),
    ],
)
def test_an_order_by_price_asked_by_name_sorts_the_search_in_force(asked, order) -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(asked, {"search": {"category": "jackets"}, "sort": order}, act="refinement"),
    )
    assert _misses(results) == []


def test_a_figure_around_which_to_stay_is_the_budget_when_its_currency_is_said() -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn("around 80 euros", {"search": {"category": "jackets", "max_price": 80}}),
        _turn("show me boots", {"search": {"category": "boots"}}),
        _turn("about 3 of them in black", {"search": {"category": "boots", "colour": "black"}}),
    )
    assert _misses(results) == []


def test_a_comparison_goes_on_with_the_same_two_and_names_them_beside_its_question() -> None:
    both = {"name": ["Harbor Supply Trench Coat", "Northwind Fleece Jacket"]}
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(
            "the trench or the fleece, which is better for rain",
            {"refers_to": both, "no_search": True, "answer_has": ["doesn't say"]},
            act="comparison",
        ),
        _turn("and price wise?", {"refers_to": both, "answer_has": ["cheaper"]}, act="comparison"),
        _turn("which costs less", {"refers_to": both, "no_search": True}, act="comparison"),
        _turn(
            "the fleece jacket or the trench - which lasts longer",
            {"refers_to": both, "answer_has": ["doesn't say"]},
            act="comparison",
        ),
    )
    assert _misses(results) == []


def test_any_colour_drops_the_colour_chosen_and_a_colour_ok_actually_is_back_in() -> None:
    chosen = _replay(
        _turn("t-shirts", {"search": {"category": "t-shirts"}}),
        _turn("any in navy?", {"search": {"category": "t-shirts", "colour": "navy"}}),
        _turn("any colour is fine actually", {"search": {"category": "t-shirts"}}, act="lift"),
    )
    disliked = _replay(
        _turn("t-shirts", {"search": {"category": "t-shirts", "exclude_colours": ["pink"]}}),
        _turn(
            "pink is ok actually",
            {"search": {"category": "t-shirts"}, "lifts": ["exclude_colours"]},
            act="lift",
        ),
        facts=["colour/pink=dislike"],
    )
    assert _misses(chosen) == [] and _misses(disliked) == []


def test_a_place_said_with_a_remark_and_a_bare_question_of_the_one_in_focus() -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(
            "second one looks nice, what colours?",
            {"refers_to": {"positions": [2]}, "no_search": True, "answer_has": ["comes in"]},
        ),
        _turn("sizes?", {"refers_to": {"positions": [2]}, "answer_has": ["sizes"]}),
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        # Several in view and none in focus: which one, never a brush-off.
        _turn("what colours", {"no_search": True, "answer_has": ["Which one"]}),
    )
    assert _misses(results) == []


def test_a_thing_asked_for_by_name_alone_is_searched_and_none_said_plainly() -> None:
    results = _replay(
        _turn("hoodie?", {"none": True, "answer_lacks": ["only help"]}, act="catalog_question"),
        _turn("why?", {"no_search": True}, act="smalltalk"),
    )
    assert _misses(results) == []


def test_the_cheaper_one_of_two_in_focus_is_that_one() -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn("compare the first and second", {"no_search": True}, act="comparison"),
        _turn(
            "is the cheaper one in stock in L?",
            {"refers_to": {"name": "Harbor Supply Trench Coat"}, "no_search": True},
            act="availability",
        ),
    )
    assert _misses(results) == []


def test_a_garment_wanted_said_of_oneself_is_a_request_and_the_cheapest_is_of_the_list() -> None:
    results = _replay(
        _turn(
            "I'm after a dress for a summer wedding",
            {"search": {"category": "dresses"}, "answer_lacks": ["What are you looking for"]},
        ),
        _turn("the first one", {"refers_to": {"positions": [1]}, "no_search": True}),
        # An answer about one since: "those" is still the list's search.
        _turn(
            "the cheapest of those",
            {"search": {"category": "dresses"}, "sort": "price_asc"},
            act="refinement",
        ),
    )
    assert _misses(results) == []


@pytest.mark.parametrize(
    ("asked", "positions", "said"),
    [
        ("1 vs 2 whats warmer", [1, 2], "which is warmer"),
        ("1st or 3rd - which is smarter", [1, 3], "which is smarter"),
        ("2nd vs 3rd which fits better", [2, 3], "which fits better"),
    ],
)
def test_a_quality_the_catalog_lacks_asked_of_two_by_place_is_said_plainly(
    asked, positions, said
) -> None:
    results = _replay(
        _turn("show me jackets", {"search": {"category": "jackets"}}),
        _turn(asked, {"refers_to": {"positions": positions}, "answer_has": [said]}),
    )
    assert _misses(results) == []


def test_places_beyond_a_short_list_are_asked_about_and_an_aspect_is_no_search_word() -> None:
    results = _replay(
        _turn("jackets from kestrel", {"search": {"category": "jackets", "brand": "Kestrel"}}),
        _turn("1 vs 3 whats warmer", {"no_search": True, "answer_has": ["I showed one product"]}),
        _turn("and price wise?", {"no_search": True, "answer_has": ["€"]}),
    )
    assert _misses(results) == []


def test_a_budget_moved_narrows_the_search_in_force() -> None:
    results = _replay(
        _turn("knitwear under 90", {"search": {"category": "knitwear", "max_price": 90}}),
        _turn("raise it to 150", {"search": {"category": "knitwear", "max_price": 150}}),
        _turn("stretch to 200 then", {"search": {"category": "knitwear", "max_price": 200}}),
    )
    assert _misses(results) == []


def test_asking_a_products_other_colours_lifts_no_remembered_dislike() -> None:
    results = _replay(
        _turn(
            "sandals for a garden party?",
            {"search": {"category": "sandals", "exclude_colours": ["black"]}},
        ),
        _turn("the strappy ones - other colours?", {"no_search": True}, act="availability"),
        _turn(
            "and a dress to go with",
            {"search": {"category": "dresses", "exclude_colours": ["black"]}},
        ),
        facts=["colour/black=dislike"],
    )
    assert _misses(results) == []


def test_a_service_the_chat_cannot_do_is_said_so_and_nothing_searched() -> None:
    results = _replay(
        _turn("boots", {"search": {"category": "boots"}}),
        *(
            _turn(
                text,
                {"no_search": True, "answer_has": ["not something I can do"]},
                act="out_of_scope",
            )
            for text in (
                "can you reserve a pair in store for me",
                "do you do gift wrapping",
                "can you write me a poem about t-shirts",
            )
        ),
    )
    assert _misses(results) == []


def test_asking_whether_the_shop_sells_a_kind_asks_the_whole_shop() -> None:
    results = _replay(
        _turn("hiking boots", {"search": {"category": "boots"}, "words": ["hiking"]}),
        _turn("do you sell running socks?", {"none": True}, act="catalog_question"),
    )
    assert _misses(results) == []
    assert results[1].first_search.get("category") is None


def test_any_in_a_colour_after_a_list_of_one_searches_again_with_its_words() -> None:
    results = _replay(
        _turn("chelsea boots", {"search": {"category": "boots"}, "words": ["chelsea"]}),
        _turn("any in brown?", {"search": {"category": "boots", "colour": "brown"}}),
    )
    assert _misses(results) == []
    assert results[1].first_search.get("query") == "chelsea"


def test_a_budget_moved_by_a_verb_leaves_the_verb_out_of_the_search() -> None:
    results = _replay(
        _turn("jackets under 200", {"search": {"category": "jackets", "max_price": 200}}),
        _turn("stretch to 320 then", {"search": {"category": "jackets", "max_price": 320}}),
    )
    assert _misses(results) == []
    assert "query" not in results[1].first_search


def test_an_english_word_is_never_read_as_the_colour_it_is_a_letter_from() -> None:
    results = _replay(
        _turn("block heel sandals", {"search": {"category": "sandals"}, "words": ["block heel"]})
    )
    assert _misses(results) == []


def test_a_waist_said_now_filters_by_the_shops_letter_and_says_so() -> None:
    results = _replay(
        _turn(
            "straight leg jeans, 32 waist",
            {"search": {"category": "jeans", "size": "M"}, "answer_has": ["32 waist", "about M"]},
        ),
        facts=["size/bottoms=L"],
    )
    assert _misses(results) == []


def test_a_question_of_the_one_in_focus_is_about_it_and_of_many_asks_which() -> None:
    results = _replay(
        _turn("jeans", {"search": {"category": "jeans"}}),
        _turn("how much?", {"no_search": True, "answer_has": ["which one"]}),
        # One pair of the list is white: "the white ones" is that pair.
        _turn("the white ones?", {"refers_to": {"name": "Vela Relaxed Tapered"}}, act="reference"),
        _turn(
            "and how much?",
            {"refers_to": {"name": "Vela Relaxed Tapered"}, "answer_has": ["78"]},
            act="reference",
        ),
        # A place in the list counts in the list, though one pair was shown alone since.
        _turn(
            "is the first one any good for the office",
            {"refers_to": {"name": "Fjord & Pine High-Rise Wide Jeans"}, "no_search": True},
            act="reference",
        ),
    )
    assert _misses(results) == []


def test_a_comparison_by_any_quality_finds_both_sides_in_view_in_focus_or_by_name() -> None:
    both = ["Harbor Supply Trench Coat", "Northwind Fleece Jacket"]
    results = _replay(
        _turn("jackets", {"search": {"category": "jackets"}}),
        _turn("the trench", {"refers_to": {"name": both[0]}}, act="reference"),
        # "This one" is the trench in focus; the fleece was in the list.
        _turn(
            "is this one warmer than the fleece?",
            {"refers_to": {"name": both}, "no_search": True},
            act="comparison",
        ),
        # Not shown this visit: looked up by its name.
        _turn(
            "which is lighter, the trench or the rain shell",
            {"refers_to": {"name": [both[0], "Kestrel Rain Shell"]}, "answer_has": ["doesn't"]},
            act="comparison",
        ),
    )
    assert _misses(results) == []


def test_an_earlier_question_asked_on_a_page_keeps_to_that_product_in_the_replay() -> None:
    jackets = {"search": {"category": "jackets"}}
    results = _replay(
        _turn("jackets", jackets),
        {
            **_turn("does this come in red", {"no_search": True}, act="availability"),
            "page": "JK-0093",
        },
        # The search in force is still every jacket: red was asked of the page's product.
        _turn("show me more", {"search": {"category": "jackets"}}, act="more"),
    )
    assert _misses(results) == []


def test_a_remembered_waist_sizes_the_bottoms_and_the_newest_size_wins() -> None:
    results = _replay(
        _turn("I'm a 34 waist", {"no_search": True}, act="statement"),
        _turn("jeans", {"search": {"category": "jeans", "size": "L"}}),
        _turn("trousers", {"search": {"category": "trousers", "size": "L"}}, visit=2),
        facts=["size/bottoms=S"],
    )
    assert _misses(results) == []


def test_asking_for_what_the_shop_lacks_leaves_the_search_in_force_and_shorthand_reads() -> None:
    results = _replay(
        _turn("skirts", {"search": {"category": "skirts"}}),
        _turn("do u sell tights", {"none": True}, act="catalog_question"),
        # Still the skirts: the shop had no tights to be about.
        _turn("show me yellow ones", {"search": {"category": "skirts", "colour": "yellow"}}),
        _turn("right. how about midi?", {"search": {"category": "skirts", "colour": "yellow"}}),
    )
    assert _misses(results) == []
    assert results[3].first_search.get("query") == "midi"


def test_a_hyphenated_catalog_word_refines_the_list_in_view() -> None:
    results = _replay(
        _turn("skirts", {"search": {"category": "skirts"}}),
        _turn("a-line?", {"search": {"category": "skirts"}, "words": ["a-line"]}, act="refinement"),
    )
    assert _misses(results) == []


def test_a_question_that_asks_no_colour_is_answered_with_the_product_not_its_colour() -> None:
    results = _replay(
        _turn("jeans", {"search": {"category": "jeans"}}),
        # The second pair comes in white only: its card's colour keeps the sizes to white,
        # but nothing was asked of colour.
        _turn(
            "is the second one any good for the office",
            {"refers_to": {"positions": [2]}, "answer_lacks": ["Yes, the"]},
            act="reference",
        ),
    )
    assert _misses(results) == []


def test_asked_how_a_product_fits_the_answer_says_what_its_description_says_or_that_it_doesnt() -> (
    None
):
    results = _replay(
        _turn("jeans", {"search": {"category": "jeans"}}),
        _turn("how does the first pair fit?", {"answer_has": ["true to size"]}, act="reference"),
        _turn("is the second one true to size?", {"answer_has": ["says nothing of how it fits"]}),
    )
    assert _misses(results) == []
