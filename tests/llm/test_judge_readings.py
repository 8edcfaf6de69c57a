"""The offline judge reads modality, time and polarity, not just words.

Each reading is checked by what the shopper would notice on a later visit: the facts kept
from one message, as (slot, value). The phrasings come from the tuning part
(tests/data/judge_facts.jsonl); the frozen evaluation part is only ever scored.
"""

from __future__ import annotations

import pytest

from llm.offline.judge import facts_judge


def kept(message: str) -> set[tuple[str, str]]:
    return {(fact.slot, fact.value) for fact in facts_judge(message)}


@pytest.mark.parametrize(
    "message",
    [
        "If I were a size M, would this jacket fit?",
        "If my budget were 200 euros I'd get the coat.",
        "In case I'm an L in this brand, can I swap it later?",
        "If the budget allows, I'd love cashmere.",
    ],
)
def test_a_supposition_keeps_nothing(message):
    assert kept(message) == set()


def test_a_condition_after_a_statement_leaves_the_statement():
    assert kept("I'm an M, if that helps.") == {("size/tops", "M")}


@pytest.mark.parametrize(
    "message",
    [
        "I think I'm a size M.",
        "I'm probably an L.",
        "Maybe I'm a 42 in shoes.",
        "I'm not sure, I might be an XL in jackets.",
    ],
)
def test_a_hedged_size_keeps_nothing(message):
    assert kept(message) == set()


def test_a_hedge_keeps_a_budget_since_a_figure_to_spend_is_rough_anyway():
    assert kept("I don't have a huge budget, maybe 60 euros max") == {("budget", "60 EUR")}


@pytest.mark.parametrize(
    "message",
    [
        "Would a 42 be my size in these trainers?",
        "Am I a medium or a large in this cut?",
        "Do you think navy suits me?",
        "Should I go for a 40 or a 41 in these?",
    ],
)
def test_a_question_keeps_nothing(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    "message",
    [
        "I used to wear a size S.",
        "Back in college I loved neon.",
        "My budget last Christmas was about 300 euros.",
        "When I was younger I hated pink.",
        "Two years ago I was really into neon.",
    ],
)
def test_a_past_state_keeps_nothing(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I've worn Birkenstocks since I was a teenager.", {("brand/birkenstocks", "like")}),
        ("I've gone up to an XL since last year", {("size/tops", "XL")}),
    ],
)
def test_a_state_that_still_holds_is_kept(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Wool always irritates my skin.", {("material/wool", "dislike")}),
        ("Nylon gives me a rash.", {("material/nylon", "dislike")}),
        ("Synthetic fabrics bother my skin.", {("material/synthetics", "dislike")}),
        ("Beige is so draining on me.", {("colour/beige", "dislike")}),
        ("Orange really doesn't suit me.", {("colour/orange", "dislike")}),
        ("Grey makes me look tired.", {("colour/grey", "dislike")}),
        ("Leather is a dealbreaker for me, I'm vegan.", {("material/leather", "dislike"), ("values/vegan", "like")}),
    ],
)  # fmt: skip
def test_discomfort_and_refusal_are_dislikes(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Can you remember that I'm an XS?", {("size/tops", "XS")}),
        ("Please note I can't wear wool.", {("material/wool", "dislike")}),
    ],
)
def test_what_the_shopper_asks_to_be_remembered_is_a_statement(message, facts):
    assert kept(message) == facts


def test_a_relative_clause_judges_its_subject():
    assert kept("Red is a colour I'd never wear.") == {("colour/red", "dislike")}


def test_a_negated_discomfort_is_no_dislike():
    assert kept("Cashmere never irritates me, I love it.") == {("material/cashmere", "like")}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I used to hate pink, but now I love it.", {("colour/pink", "like")}),
        ("I used to love Zara but I've gone off it.", {("brand/zara", "dislike")}),
        ("Red used to be my favourite, now I can't stand it.", {("colour/red", "dislike")}),
        ("I hated purple as a kid, now I adore it.", {("colour/purple", "like")}),
        ("I was never into florals, but they've grown on me.", {("design/floral", "like")}),
        ("I've come round to florals.", {("design/floral", "like")}),
        ("I used to love Vela, not any more.", {("brand/vela", "dislike")}),
        ("I never used to like green but I do now.", {("colour/green", "like")}),
        ("My husband hates orange but I love it.", {("colour/orange", "like")}),
    ],
)
def test_a_changed_mind_keeps_the_newest_state_either_way(message, facts):
    assert kept(message) == facts


def test_it_stands_for_a_term_only_when_the_term_was_not_a_garment_s_colour():
    assert kept("I tried a red dress on, I love it.") == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I'm between an M and an L, usually an M.", {("size/tops", "M")}),
        ("I wear a 42 or 43 in shoes, mostly 43.", {("size/shoes", "43")}),
        ("Normally a 10 in dresses, occasionally a 12.", {("size/dresses", "S")}),
        ("S or M, mostly S.", {("size/tops", "S")}),
        ("I'm an M, sometimes an L.", {("size/tops", "M")}),
        ("I'm a 10 or a 12 in dresses, mostly a 10.", {("size/dresses", "S")}),
        ("I went up a size, I'm an L now.", {("size/tops", "L")}),
        ("I dropped from a 14 to a 12 in dresses.", {("size/dresses", "M")}),
    ],
)
def test_of_several_sizes_the_usual_or_newest_one_is_kept(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "I'm an M or an L depending on the brand.",
        "I'm a 42 in running shoes but a 43 in boots.",
    ],
)
def test_sizes_nothing_tells_apart_keep_none(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("M in t-shirts, L in jackets.", {("size/tops", "M"), ("size/outerwear", "L")}),
        ("I take a 44 in hiking boots.", {("size/shoes", "44")}),
        ("Usually 41, but 42 for sneakers.", {("size/shoes", "41")}),
    ],
)
def test_a_size_for_a_garment_or_activity_goes_to_that_garment_s_one_slot(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Nothing over about sixty euros, please.", {("budget", "60 EUR")}),
        ("My limit is a hundred and fifty euros.", {("budget", "150 EUR")}),
        ("I can spend seventy-five euros at the very most.", {("budget", "75 EUR")}),
        ("I wear shoe size forty-two.", {("size/shoes", "42")}),
        ("Keep it to around forty quid.", set()),  # not euros: not converted
        ("I'd never spend more than roughly 80 euros.", {("budget", "80 EUR")}),
        ("My budget is say 70 euros.", {("budget", "70 EUR")}),
    ],
)
def test_figures_are_read_with_the_words_around_them(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I always end up buying Levi's.", {("brand/levis", "like")}),
        ("I keep going back to Arket.", {("brand/arket", "like")}),
        ("Half my wardrobe is Uniqlo.", {("brand/uniqlo", "like")}),
        ("Nothing beats Adidas for me.", {("brand/adidas", "like")}),
        ("I buy all my jeans from Levi's.", {("brand/levis", "like")}),
    ],
)
def test_loyalty_said_as_a_habit_is_a_liking(message, facts):
    assert kept(message) == facts


def test_a_place_after_from_is_no_brand():
    assert kept("I love knitwear from Scotland.") == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I need jeans for my 32 waist.", {("size/waist", "32")}),
        ("Show me jeans in 32 waist", {("size/waist", "32")}),
        ("Can you find me boots in my size, a 39?", {("size/shoes", "39")}),
        ("Show me shirts in M.", set()),  # a filter, maybe for someone else
        ("My daughter needs jeans in a 26 waist.", set()),
        ("I need jeans for my son, 28 waist.", set()),
        ("Looking for chinos for my husband in a 34 waist.", set()),
    ],
)
def test_a_size_inside_a_request_counts_only_when_it_is_the_shopper_s_own(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Bright yellow is not for me anymore.", {("colour/yellow", "dislike")}),
        ("I'm shopping on a student budget.", {("budget", "tight")}),
        ("I'm 100% a size 9 in shoes.", {("size/shoes", "43")}),
    ],
)
def test_a_shade_is_its_colour_a_budget_in_words_and_a_uk_shoe_size(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I usually buy from H&M.", {("brand/h-and-m", "like")}),
        ("I nearly always order from Arket.", {("brand/arket", "like")}),
        ("I've stuck with Asics for a decade now.", {("brand/asics", "like")}),
        ("Whenever I need jeans I go straight to Levi's.", {("brand/levis", "like")}),
        ("I've bought nothing but Levi's for years.", {("brand/levis", "like")}),
    ],
)
def test_a_frequency_or_a_kept_up_habit_of_buying_is_loyalty(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Most of my stuff is Zara.", {("brand/zara", "like")}),
        ("Loads of my jumpers are Jigsaw.", {("brand/jigsaw", "like")}),
        ("Pretty much everything I own is from Muji.", {("brand/muji", "like")}),
        ("Every pair of trainers I own is New Balance.", {("brand/new-balance", "like")}),
        ("Vans are pretty much all I wear.", {("brand/vans", "like")}),
        ("Most of my wardrobe is second-hand.", {("values/second-hand", "like")}),
    ],
)
def test_a_quantity_of_what_the_shopper_owns_is_a_habit(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("my go to brand is everlane", {("brand/everlane", "like")}),
        ("Muji is my comfort zone.", {("brand/muji", "like")}),
        ("I'm a Uniqlo loyalist.", {("brand/uniqlo", "like")}),
        ("Uniqlo is where I get most of my basics.", {("brand/uniqlo", "like")}),
        ("Burgundy is my jam.", {("colour/burgundy", "like")}),
        ("Red is my signature colour.", {("colour/red", "like")}),
        ("Navy's my colour.", {("colour/navy", "like")}),
        ("Sage green is so me.", {("colour/sage", "like")}),
        ("Cotton is my fabric.", {("material/cotton", "like")}),
    ],
)
def test_a_possessive_frame_judges_the_word_before_or_after_it(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I live in navy.", {("colour/navy", "like")}),
        ("I'm a big fan of pastel pink.", {("colour/pink", "like")}),
        ("I gravitate to earth tones.", {("colour/earth-tones", "like")}),
        ("Can't get enough of red.", {("colour/red", "like")}),
        ("crazy about teal rn", {("colour/teal", "like")}),
        ("I've got a soft spot for yellow.", {("colour/yellow", "like")}),
        ("Mustard really suits my skin tone.", {("colour/mustard", "like")}),
        ("I'm a sucker for cashmere.", {("material/cashmere", "like")}),
    ],
)
def test_fondness_said_with_an_idiom_is_a_liking(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "I live in Lisbon.",
        "I don't always buy Zara.",
        "A friend of mine can't get enough of red.",
        "Wool makes my son itch.",
        "Everyone at my office lives in black.",
        "My dad's wardrobe is mostly Marks & Spencer.",
    ],
)
def test_a_place_a_negated_habit_or_someone_else_keeps_nothing(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    "message",
    [
        "Money's tight this month.",
        "Funds are a bit low right now.",
        "My finances are a bit stretched.",
        "I'm strapped for cash.",
        "I'm not made of money.",
        "I'm pinching pennies this month.",
        "Bit short on cash at the moment.",
        "I'm trying not to spend too much.",
        "I need to keep costs down.",
    ],
)
def test_a_tight_budget_said_in_words_is_kept(message):
    assert kept(message) == {("budget", "tight")}


@pytest.mark.parametrize(
    "message",
    [
        "I'm not on a budget this time.",
        "Last month money was tight.",
        "I think I was on a budget last year.",
        "Imagine I were on a shoestring budget.",
        "Even if I were on a shoestring, I would pick this one.",
        "My mum is on a shoestring budget.",
        "Is money tight for most students?",
    ],
)
def test_a_tight_budget_denied_past_supposed_or_someone_else_s_keeps_nothing(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Wool scratches.", {("material/wool", "dislike")}),
        ("Acrylic makes my skin crawl.", {("material/acrylic", "dislike")}),
        ("My skin reacts to wool.", {("material/wool", "dislike")}),
        ("I get eczema from synthetic fabrics.", {("material/synthetics", "dislike")}),
        ("Elastane gives me eczema.", {("material/elastane", "dislike")}),
        ("Polyester and I don't get along.", {("material/polyester", "dislike")}),
        ("Polyester feels clammy on me.", {("material/polyester", "dislike")}),
        ("Polyester traps the heat and I end up drenched.", {("material/polyester", "dislike")}),
        ("I react to nickel.", set()),  # not a fabric of the closed list
        ("Wool doesn't bother me.", set()),
    ],
)
def test_what_a_fabric_does_to_the_skin_is_a_dislike(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Silk feels amazing on me.", {("material/silk", "like")}),
        ("I'm all for recycled materials.", {("values/recycled", "like")}),
        ("Minimalist stuff is more my vibe.", {("design/minimalist", "like")}),
        ("Logos are a turn-off.", {("design/logos", "dislike")}),
        ("Natural fibres only, please.", {("material/natural-fibres", "like")}),
        ("Got a job interview on Thursday.", {("occasion/interview", "interview")}),
    ],
)
def test_verdicts_after_the_word_and_a_telling_without_i_are_kept(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "I'm an M in some brands and an L in others.",
        "Prices here are always 1 euro for me.",
    ],
)
def test_a_size_that_varies_by_brand_and_a_claim_about_prices_keep_nothing(message):
    assert kept(message) == set()
