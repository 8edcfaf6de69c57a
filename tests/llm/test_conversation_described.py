"""A product pointed at by what it is: found though no answer showed it, and asking about it
leaves the list the shopper was narrowing as it was."""

from __future__ import annotations

import pytest

from assistant.management.commands.score_conversations import conversation_score
from shop.selectors import catalog_vocabulary

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _turn(text: str, expect: dict, *, act: str = "reference") -> dict:
    return {"visit": 1, "text": text, "page": None, "act": act, "expect": expect}


def _misses(*turns: dict, facts: list[str] | None = None) -> list[str]:
    conversation = {"id": "t", "signed_in": True, "facts": facts or [], "turns": list(turns)}
    results = conversation_score(conversation, vocabulary=catalog_vocabulary())
    return [f"{r.turn['text']!r}: {'; '.join(r.misses)}" for r in results if r.misses]


def test_a_product_described_but_not_shown_is_found_and_the_list_in_force_kept() -> None:
    misses = _misses(
        _turn("show me skirts", {"search": {"category": "skirts"}}, act="request"),
        # No corduroy skirt among the four shown: it is looked up, not searched as a list.
        _turn("how about the corduroy one?", {"refers_to": {"name": "Northwind Corduroy Skirt"}}),
        # The skirts in force are narrowed, with no corduroy kept from the look-up.
        _turn(
            "do any come in blue",
            {"search": {"category": "skirts", "colour": "blue"}},
            act="refinement",
        ),
    )
    assert misses == []


def test_a_described_product_asked_in_a_size_is_answered_in_that_size() -> None:
    misses = _misses(
        _turn("dresses please", {"search": {"category": "dresses"}}, act="request"),
        _turn(
            "is the smock one in L?",
            {"refers_to": {"name": "Fjord & Pine Smock Dress"}, "answer_has": ["size L"]},
            act="availability",
        ),
        _turn(
            "and under 100?",
            {"search": {"category": "dresses", "max_price": 100}},
            act="refinement",
        ),
    )
    assert misses == []


def test_a_message_that_opens_on_what_the_one_is_points_at_it() -> None:
    misses = _misses(
        _turn("cardigans", {"words": ["cardigan"]}, act="request"),
        _turn(
            "lambswool one in L?",
            {
                "refers_to": {"name": "Atelier Mira Lambswool Cardigan"},
                "answer_has": ["size L"],
                "no_search": True,
            },
            act="availability",
        ),
        _turn(
            "and under 100?",
            {"search": {"category": "knitwear", "max_price": 100}},
            act="refinement",
        ),
    )
    assert misses == []


def test_a_brand_said_beside_a_description_is_not_another_brands_product() -> None:
    misses = _misses(
        _turn("boots for winter", {"search": {"category": "boots"}}, act="request"),
        # A Solstice pair of ankle boots is in view; the Kestrel one is meant.
        _turn(
            "what about the ankle boots by kestrel",
            {"refers_to": {"name": "Kestrel Leather Ankle Boots"}},
        ),
    )
    assert misses == []
