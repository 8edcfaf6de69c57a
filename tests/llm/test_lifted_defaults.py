"""Remembered preferences the shopper lifted are no search defaults any more.

The offline assistant folds the recalled fact lines, oldest first, into the defaults it
sends with a search (`llm/offline/facts.py`); a lift in a later line must take the older
preference out, or the shopper keeps getting a filter they set aside.
"""

from __future__ import annotations

from llm.offline.facts import current_facts, profile_from_facts
from llm.offline.notes import Fact
from llm.offline.vocabulary import vocabulary_from_tools
from tests.support.shopping import TOOLS

VOCABULARY = vocabulary_from_tools(TOOLS)


def _profile(*lines: str):
    facts = [Fact(date=f"2026-0{i + 1}-01", text=text, order=i) for i, text in enumerate(lines)]
    return profile_from_facts(facts, VOCABULARY)


def test_a_colour_no_longer_minded_is_no_longer_excluded():
    profile = _profile(
        "The shopper dislikes yellow.",
        "The shopper dislikes pink.",
        "The shopper no longer minds yellow.",
    )
    assert profile.disliked_colours == ["pink"]


def test_any_colour_ends_every_colour_dislike():
    profile = _profile("The shopper dislikes yellow.", "The shopper does not mind which colour.")
    assert profile.disliked_colours == []


def test_any_brand_ends_the_remembered_brand_and_a_later_one_sets_it_again():
    brand = VOCABULARY.brands[0]
    assert (
        _profile(
            f"The shopper prefers the brand {brand}.", "The shopper does not mind which brand."
        ).brand
        is None
    )
    later = _profile(
        "The shopper does not mind which brand.", f"The shopper prefers the brand {brand}."
    )
    assert later.brand == brand


def test_no_budget_ends_the_remembered_budget():
    profile = _profile(
        "The shopper's budget is up to 80 EUR.", "The shopper has no budget limit any more."
    )
    assert profile.max_price is None


def test_a_lift_is_the_current_fact_of_its_slot():
    facts = [
        Fact(date="2026-01-01", text="The shopper dislikes yellow.", order=0),
        Fact(date="2026-02-01", text="The shopper no longer minds yellow.", order=1),
    ]
    assert [f.text for f in current_facts(facts, VOCABULARY)] == [
        "The shopper no longer minds yellow."
    ]
