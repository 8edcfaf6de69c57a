"""The offline judge on changes of mind, lifts, one-offs, irony and the shop's sizes.

Each case is what the shopper would find remembered on the next visit, as (slot, value):
a lift must replace the old preference, a one-off or an ironic remark must leave nothing
that would become a standing search filter, and sizes arrive in the shop's own system.
"""

from __future__ import annotations

import pytest

from llm.offline.judge import facts_judge


def kept(message: str) -> set[tuple[str, str]]:
    return {(fact.slot, fact.value) for fact in facts_judge(message)}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Yellow's fine now, I've come round to it", {("colour/yellow", "neutral")}),
        ("I don't mind Kestrel any more", {("brand/kestrel", "neutral")}),
        ("Polyester is OK after all", {("material/polyester", "neutral")}),
        ("Orange doesn't bother me anymore", {("colour/orange", "neutral")}),
        ("Wool used to itch but I'm fine with it now.", {("material/wool", "neutral")}),
        ("Any brand is fine with me these days", {("brand/any", "neutral")}),
        ("Colour doesn't matter to me now", {("colour/any", "neutral")}),
        ("I'm not fussy about fabric", {("material/any", "neutral")}),
        ("Forget the budget, money's no object", {("budget", "none")}),
        ("Money's not tight anymore.", {("budget", "none")}),
        ("I've stopped worrying about the budget, it doesn't matter now", {("budget", "none")}),
    ],
)
def test_a_lifted_preference_is_a_neutral_fact(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "I don't mind grey",  # no sign that a mind changed: too little to lift anything
        "Wool doesn't bother me.",
        "Price doesn't matter much to me",  # hedged
        "Today I'm treating myself, price doesn't matter",  # once
        "Green's fine I guess.",
    ],
)
def test_a_weak_or_one_off_lift_keeps_nothing(message):
    assert kept(message) == set()


def test_a_category_lift_with_an_exception_keeps_only_the_exception():
    assert kept("Any colour is fine, anything but beige.") == {("colour/beige", "dislike")}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Never show me anything in orange", {("colour/orange", "dislike")}),
        ("Don't ever show me Vela again", {("brand/vela", "dislike")}),
        ("Please never suggest polyester to me", {("material/polyester", "dislike")}),
        ("Keep brown away from me", {("colour/brown", "dislike")}),
        (
            "Don't show me leather, I'm vegan",
            {("material/leather", "dislike"), ("values/vegan", "like")},
        ),
    ],
)
def test_never_show_me_is_a_standing_dislike(message, facts):
    assert kept(message) == facts


def test_a_refusal_for_this_search_only_is_no_dislike():
    assert kept("Don't show me black this time") == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        (
            "I switched from Kestrel to Northwind this year",
            {("brand/kestrel", "dislike"), ("brand/northwind", "like")},
        ),
        ("My waist went from 32 to 34", {("size/waist", "34")}),
        (
            "I went from Northwind to Kestrel last winter",
            {("brand/northwind", "dislike"), ("brand/kestrel", "like")},
        ),
        ("Make that a 41, not a 40, I measured my feet again", {("size/shoes", "41")}),
        ("I was a size 10 last year but I'm a 12 now", {("size/tops", "M")}),
        ("XL for jackets, L for everything else", {("size/outerwear", "XL"), ("size/tops", "L")}),
        (
            "I'm done with polyester, it's cotton for me these days",
            {("material/polyester", "dislike"), ("material/cotton", "like")},
        ),
    ],
)
def test_a_change_keeps_the_newest_state(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "Just this once I'd spend up to 200",
        "For this jacket only I'll go to 250",
        "I'd pay 120 for these boots, but not usually",
        "Yeah because I just love spending 300 on jeans",
        "Yeah right, like I'd ever pay 150 for a hoodie",
        "Wow, I totally love itchy wool jumpers, said no one ever",
        "I go up a size in Kestrel",
        "Kestrel shoes run small so I take a 43 in theirs",
    ],
)
def test_once_irony_and_one_brands_sizing_are_no_standing_facts(message):
    assert kept(message) == set()


def test_the_usual_size_said_before_one_brands_sizing_is_kept():
    message = "I'm usually a size 40 in shoes but Vela runs small so 41 there"
    assert kept(message) == {("size/shoes", "40")}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I'm a UK 9 in shoes", {("size/shoes", "43")}),
        ("My shoes are UK 10", {("size/shoes", "44")}),
        ("I wear a US 10 shoe", {("size/shoes", "43")}),
        ("I'm a women's US 8 in shoes", {("size/shoes", "39")}),
        ("I take a UK 8.5 in trainers", {("size/shoes", "42.5")}),
        ("I'm a size 14 in dresses", {("size/dresses", "L")}),
        ("I'm an EU 40 in dresses", {("size/dresses", "M")}),
        ("I'm an XL in t-shirts and a 36 in jeans", {("size/tops", "XL"), ("size/waist", "36")}),
        ("My waist is 86 cm", {("size/waist", "34")}),
        ("My budget's about sixty quid", {("budget", "60 GBP")}),
        ("I can spend up to 120 dollars", {("budget", "120 USD")}),
        ("My limit is \u00a375", {("budget", "75 GBP")}),
    ],
)
def test_sizes_in_the_shops_system_and_budgets_in_their_currency(message, facts):
    assert kept(message) == facts


def test_a_converted_size_keeps_the_shoppers_wording_beside_it():
    (fact,) = facts_judge("I'm a UK 8 in shoes")
    assert fact.fact == "The shopper wears shoe size 42 (UK 8)."


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I love a v-neck", {("design/v-neck", "like")}),
        ("No turtlenecks for me", {("design/turtleneck", "dislike")}),
        ("Narrow fit shoes work best for my feet", {("design/narrow-fit", "like")}),
        ("Wide-leg trousers are what I go for", {("design/wide-leg", "like")}),
        ("I like double-breasted coats", {("design/double-breasted", "like")}),
    ],
)
def test_neck_width_and_style_words_are_kept(message, facts):
    assert kept(message) == facts
