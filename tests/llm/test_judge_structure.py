"""The offline judge reads change, lifts and style by the shape of a clause, not by phrase.

Each case is said in words no tuning line uses, so that a rule passes only by reading the
structure (an aversion denied with a changed mind, "<shown> X again", a limit taken away),
and each has a near miss that must keep nothing or the opposite.
"""

from __future__ import annotations

import pytest

from llm.offline.judge import facts_judge


def kept(message: str) -> set[tuple[str, str]]:
    return {(fact.slot, fact.value) for fact in facts_judge(message)}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # An aversion verb denied, with a sign the mind changed, lifts what it named.
        ("Honestly I don't loathe beige anymore", {("colour/beige", "neutral")}),
        ("I no longer dislike corduroy", {("material/corduroy", "neutral")}),
        # Shown, suggested or included "again": the refusal is over.
        ("Feel free to include Northwind again", {("brand/northwind", "neutral")}),
        ("Glad to see ruffles again", {("design/ruffles", "neutral")}),
        ("Suede isn't off-limits now", {("material/suede", "neutral")}),
        ("I got over my aversion towards florals", {("design/floral", "neutral")}),
        # A limit taken away: skipped, dropped, not worried about, no longer on one.
        ("Let's skip the budget this year", {("budget", "none")}),
        ("I dropped my spending cap", {("budget", "none")}),
        ("Money is no concern", {("budget", "none")}),
        ("Please don't worry about my spending limit now", {("budget", "none")}),
        ("We're no longer on a tight budget", {("budget", "none")}),
    ],
)
def test_a_lift_is_read_by_its_shape(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # A liking denied is a dislike, never a lift.
        ("I don't like Northwind any more", {("brand/northwind", "dislike")}),
        # "again" under a refusal is no lift.
        ("Never suggest Northwind again", {("brand/northwind", "dislike")}),
        ("Don't include ruffles again", {("design/ruffles", "dislike")}),  # a standing refusal
        ("Don't include ruffles", set()),  # for this search only
        # A budget changed, not dropped.
        ("I dropped my budget to 40", {("budget", "40 EUR")}),
    ],
)
def test_the_near_misses_of_a_lift_are_no_lift(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # A size for one garment, then one for the rest of the wardrobe, however the rest is said.
        ("XL in coats, medium for the rest", {("size/outerwear", "XL"), ("size/tops", "M")}),
        ("Blazers L, S otherwise", {("size/outerwear", "L"), ("size/tops", "S")}),
        ("Jackets XL, L elsewhere", {("size/outerwear", "XL"), ("size/tops", "L")}),
    ],
)
def test_a_per_garment_exception_gives_the_rest_its_own_size(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # "X's out, Y's in", contracted as well as spelt out.
        ("Kestrel's out, Mistral's in", {("brand/kestrel", "dislike"), ("brand/mistral", "like")}),
        # "to Y from X" with no subject, and "from X to Y" with what changed named between.
        (
            "Moved to Solstice from Brightmoor",
            {("brand/brightmoor", "dislike"), ("brand/solstice", "like")},
        ),
        (
            "I changed my favourite colour from teal to plum",
            {("colour/teal", "dislike"), ("colour/plum", "like")},
        ),
        # A measure changed with its noun named: the new figure is that measure's.
        ("Moved my budget from 50 to 80", {("budget", "80 EUR")}),
        ("Replace my 39 with a 40 in boots", {("size/shoes", "40")}),
        # A name denied with a changed mind, then what holds now.
        (
            "No more Kestrel these days: Mistral is my brand",
            {("brand/kestrel", "dislike"), ("brand/mistral", "like")},
        ),
        (
            "Not Kestrel these days, Mistral is my brand",
            {("brand/kestrel", "dislike"), ("brand/mistral", "like")},
        ),
        # The size meant, against the one typed by mistake.
        ("Typo, I meant XS not S", {("size/tops", "XS")}),
        # A liking taken back, in the same sentence or after a stop.
        ("Used to adore Tern. Not so much now.", {("brand/tern", "dislike")}),
        ("I used to love velvet, not so much", {("material/velvet", "dislike")}),
    ],
)
def test_a_change_is_read_by_its_shape(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        # Someone else's liking taken back is theirs.
        "My sister used to love Tern. Not any more.",
        "My dad used to adore velvet, not so much now",
        # Not a change: a request with two sizes.
        "I meant the navy one, not the black one?",
    ],
)
def test_someone_elses_change_keeps_nothing(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # A figure in the past, then a bare new one said to hold now: the new one stands.
        ("Budget was 40, it's 65 these days", {("budget", "65 EUR")}),
        ("Skirts used to be a 14 for me, now a 12", {("size/bottoms", "M")}),
        ("Was a medium a while ago, a large now", {("size/tops", "L")}),
        ("I could spend 30 before; now it's 55", {("budget", "55 EUR")}),
        ("Two years ago I was a UK 8, these days a 10", {("size/tops", "S")}),
        ("I used to wear a 41 in boots, now a 42", {("size/shoes", "42")}),
    ],
)
def test_was_then_now_keeps_the_new_figure(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("My daughter was a 10, now a 12", set()),  # someone else's
        ("I was a 12 last year, I'm not sure now", set()),  # no new figure
        # A garment or a measure is never a brand, capitalised or not.
        ("Jumpsuits are a 10 for me", {("size/dresses", "S")}),
        ("I love a boxy cut on T-shirts", {("design/boxy", "like")}),
        ("I wear a W32 L34", {("size/waist", "32"), ("size/inseam", "34")}),
    ],
)
def test_the_near_misses_of_was_then_now(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # The comparative of a fit or a look is that fit or look.
        ("I'd go for a baggier cut every time", {("design/loose-fit", "like")}),
        ("Slimmer fits are my thing", {("design/slim-fit", "like")}),
        # A cleft said plainly, either way round.
        ("Crew necks are exactly what I wear", {("design/crew-neck", "like")}),
        ("What I can't stand is acrylic", {("material/acrylic", "dislike")}),
        # A look the shopper says they are, with a degree or a word of dress.
        ("I'm pretty boho when it comes to clothes", {("design/boho", "like")}),
        ("I'm fairly edgy in my style", {("design/edgy", "like")}),
        # What a cut does to the shopper; a refusal said after the word.
        ("Mock necks suffocate me", {("design/mock-neck", "dislike")}),
        ("Wrap dresses are so flattering on me", {("design/wrap", "like")}),
        ("Sequins are a no", {("design/sequins", "dislike")}),
        # The first person left out, the verb first.
        ("Don't like ruffles", {("design/ruffles", "dislike")}),
        (
            "Adore Northwind, dislike Mistral",
            {("brand/northwind", "like"), ("brand/mistral", "dislike")},
        ),
        ("I always buy wide shoes", {("design/wide-fit", "like")}),
    ],
)
def test_style_and_fit_are_read_by_their_shape(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "I'm quite slim",  # a build, not a look
        "I'm very casual about returns",  # an attitude, not a look
        "I'm classic",  # no degree and no word of dress: too little to read
    ],
)
def test_a_build_or_an_attitude_is_no_look(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # A move of house, with a date ahead or a "there": the towns are no brands.
        ("We're moving from Leeds to York next month", set()),
        ("Moving to Porto soon, so I need lighter things", set()),
        ("I'm based in Hull now, not Derby", set()),
        # The move's own words only: a brand said after it stays a brand.
        ("I live in Leeds, and I'm loyal to Northwind", {("brand/northwind", "like")}),
        # A switch of brand said with "moving" stays one.
        (
            "Moving to Solstice from Kestrel",
            {("brand/kestrel", "dislike"), ("brand/solstice", "like")},
        ),
        # Irony: the first person left out, or a liking taken back at the end.
        ("Adore paying 15 quid for postage", set()),
        ("Oh yes, lime green is so me, lol no", set()),
        ("Sequins are totally my thing, just kidding", set()),
    ],
)
def test_places_and_irony_keep_no_taste(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # Beside what a list refuses, its bare names are what the shopper wants.
        (
            "Linen or hemp, no polyester",
            {
                ("material/linen", "like"),
                ("material/hemp", "like"),
                ("material/polyester", "dislike"),
            },
        ),
        ("Olive, never mustard", {("colour/olive", "like"), ("colour/mustard", "dislike")}),
        (
            "Tapered, nothing baggy",
            {("design/tapered", "like"), ("design/loose-fit", "dislike")},
        ),
        # Someone else's list stays theirs; a list that refuses nothing likes nothing by default.
        ("For my son: linen, no polyester", set()),
        ("Linen, hemp", set()),
    ],
)
def test_a_list_that_refuses_likes_its_bare_names(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # The unit between the figure and the noun.
        ("I've got a 91 cm waist", {("size/waist", "36")}),
        ("I have a 76 cm inside leg", {("size/inseam", "30")}),
        # A size denied in its system is no second size.
        ("I'm a UK 9 in trainers, not a UK 8", {("size/shoes", "43")}),
    ],
)
def test_units_and_denied_sizes(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        # One brand's sizing, with its garment named or its step said "there".
        "For Kestrel trousers I'm a 34 waist",
        "Northwind comes up small, I go up a size there",
    ],
)
def test_one_brands_sizing_is_no_size(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # The old one seen off, the new one greeted.
        (
            "Farewell viscose, hello lyocell",
            {("material/viscose", "dislike"), ("material/lyocell", "like")},
        ),
        # A taste left, with a sign the mind changed; "off to" goes somewhere.
        ("I'm right off ruffles lately", {("design/ruffles", "dislike")}),
        ("I'm off to a festival now", {("occasion/festival", "festival")}),
        # What was said before gives way to what is, in the measure it named.
        ("I told you a budget of 70 before, it's actually 90", {("budget", "90 EUR")}),
        ("I said L earlier, I'm actually an XL", {("size/tops", "XL")}),
        # Holding to a taste.
        ("I'm sticking with merino", {("material/merino", "like")}),
        # A whole category that no longer weighs on the shopper; its noun is no brand.
        ("Colour doesn't bother me any more", {("colour/any", "neutral")}),
        ("Brands no longer concern me", {("brand/any", "neutral")}),
    ],
)
def test_more_changes_and_lifts_by_their_shape(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        # A product seen before, asked for again, lifts nothing.
        "Can you show me the Tern jacket again?",
        "Could I see the yellow dress again",
        # Someone else's lift is theirs.
        "My wife is happy to see pink again",
        "He's not fussy about brands now",
    ],
)
def test_a_product_again_or_someone_elses_lift_is_no_lift(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # Greeted and seen off, in either order.
        (
            "Hi linen, bye polyester",
            {("material/linen", "like"), ("material/polyester", "dislike")},
        ),
        # A move over to a new taste.
        ("I've come over to Solstice", {("brand/solstice", "like")}),
        # A change of size said without "I", the new size after it.
        ("Came down a size this spring, an S now", {("size/tops", "S")}),
        # Brought back, or a category the shopper is easy about now.
        ("Bring back stripes please", {("design/stripes", "neutral")}),
        ("Whichever colour, I'm easy these days", {("colour/any", "neutral")}),
        # What a cut does to the shopper.
        ("Boxy jackets swamp me", {("design/boxy", "dislike")}),
    ],
)
def test_greetings_moves_and_lifts_by_their_shape(message, facts):
    assert kept(message) == facts


def test_a_size_stepped_for_one_brand_is_no_size():
    assert kept("With Solstice I size up to a 42") == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # The exception to a lift, said as its own clause, is the shopper's.
        ("Any fabric is fine now, apart from acrylic", {("material/acrylic", "dislike")}),
        # A taste the shopper has cooled on.
        ("I've gone cold on sequins", {("design/sequins", "dislike")}),
        # "Any" that starts a sentence is no brand.
        ("Any fabric is fine now", {("material/any", "neutral")}),
    ],
)
def test_an_exception_and_a_cooled_taste(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # The word said by mistake is taken back, not refused.
        ("Not grey, I meant I love charcoal", {("colour/charcoal", "like")}),
        # After a name denied, a bare new name is the one liked.
        (
            "Not Kestrel any more, Mistral now",
            {("brand/kestrel", "dislike"), ("brand/mistral", "like")},
        ),
        # What a cut does to someone else is theirs.
        ("Hoods annoy my daughter", set()),
    ],
)
def test_a_word_taken_back_and_a_new_name(message, facts):
    assert kept(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        # A list item that refuses nothing named makes no liking of the rest.
        "Linen or cotton, no preference",
        # A greeting that names no taste, and a product in stock.
        "Hello Tern team, goodbye for now",
        "The blue is out, the red is in stock",
    ],
)
def test_the_near_misses_of_lists_and_greetings(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    "message",
    [
        # Someone else's lift, after a clause of the shopper's own.
        "Shopping with my mum, she's not fussy about colour now",
        # A look followed by what it is about is no look.
        "I'm super simple to please",
    ],
)
def test_someone_elses_lift_in_a_later_clause_and_a_mood(message):
    assert kept(message) == set()


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # A habit of the past, then a switch away from it: the old taste is given up.
        (
            "I used to wear Fjord & Pine but I've switched to Tern",
            {("brand/fjord-and-pine", "dislike"), ("brand/tern", "like")},
        ),
        (
            "I'd been buying polyester for ages, but I switched to cotton",
            {("material/polyester", "dislike"), ("material/cotton", "like")},
        ),
        # Someone else's habit and switch are theirs.
        ("My wife used to buy Vela but she's switched to Tern", set()),
    ],
)
def test_a_habit_then_a_switch(message, facts):
    assert kept(message) == facts
