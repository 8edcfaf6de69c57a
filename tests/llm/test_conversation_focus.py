"""What a follow-up is about once the shopper has looked at one product: "just grey" narrows
the list, "which one costs less" chooses between the two the conversation is on."""

from __future__ import annotations

import pytest

from assistant.management.commands.score_conversations import conversation_score
from shop.selectors import catalog_vocabulary

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _turn(text: str, expect: dict, *, act: str) -> dict:
    return {"visit": 1, "text": text, "page": None, "act": act, "expect": expect}


def _misses(*turns: dict) -> list[str]:
    conversation = {"id": "t", "signed_in": False, "facts": [], "turns": list(turns)}
    results = conversation_score(conversation, vocabulary=catalog_vocabulary())
    return [f"{r.turn['text']!r}: {'; '.join(r.misses)}" for r in results if r.misses]


def test_only_a_colour_after_one_product_narrows_the_list_not_that_product() -> None:
    misses = _misses(
        _turn(
            "knitwear under 150",
            {"search": {"category": "knitwear", "max_price": 150}},
            act="request",
        ),
        _turn("the 2nd one", {"refers_to": {"positions": [2]}}, act="reference"),
        _turn(
            "just grey",
            {"search": {"category": "knitwear", "colour": "grey", "max_price": 150}},
            act="refinement",
        ),
    )
    assert misses == []


def test_which_one_of_two_looked_at_in_turn_is_a_comparison_of_them() -> None:
    both = {"name": ["Orchard Street Oxford Shirt", "Kestrel Flannel Overshirt"]}
    misses = _misses(
        _turn("shirts", {"search": {"category": "shirts"}}, act="request"),
        _turn(
            "the oxford one",
            # "oxford" is a kind of shirt: it describes the one, answered about, not a new
            # list of shirts matching it.
            {"refers_to": {"name": "Orchard Street Oxford Shirt"}, "answer_lacks": ["matching"]},
            act="reference",
        ),
        _turn(
            "and the flannel one",
            {"refers_to": {"name": "Kestrel Flannel Overshirt"}},
            act="reference",
        ),
        _turn("which one costs less", {"refers_to": both, "no_search": True}, act="comparison"),
        _turn(
            "so which is better for the office",
            {"refers_to": both, "no_search": True, "answer_has": ["doesn't say"]},
            act="comparison",
        ),
    )
    assert misses == []


def test_a_size_said_bare_after_a_list_is_that_list_in_the_size() -> None:
    misses = _misses(
        _turn(
            "trousers under 120",
            {"search": {"category": "trousers", "max_price": 120}},
            act="request",
        ),
        _turn(
            "oh i'm a medium",
            {"search": {"category": "trousers", "size": "M", "max_price": 120}},
            act="refinement",
        ),
    )
    assert misses == []


def test_a_size_said_aside_after_a_list_is_noted_not_searched() -> None:
    misses = _misses(
        _turn("sandals", {"search": {"category": "sandals"}}, act="request"),
        _turn("I'm a 39 if that matters", {"no_search": True}, act="statement"),
    )
    assert misses == []
