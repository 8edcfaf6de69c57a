"""The grounding check's reading of claims: each tied to its product, in every form a
shopper would read as one, with the check's own lines after the answer."""

from __future__ import annotations

import pytest

from assistant.turn.grounding import DROPPED_LINES, AnswerGrounder, GroundingReport, answer_ground
from assistant.turn.grounding.evidence import evidence_start

VOCABULARY = {
    "colours": ["black", "red", "yellow", "navy", "white"],
    "sizes": ["XS", "S", "M", "L", "XL", "XXL", *[str(n) for n in range(36, 47)]],
}
COAT = {
    "sku": "JK-0001",
    "name": "Harbour Trench Coat",
    "price_eur": 129.0,
    "colours": ["black", "red"],
    "sizes_in_stock": ["M", "L"],
    "description": "Trench Coat by Harbour. 100% cotton gabardine.",
    "variants": [
        {"sku": "JK-0001-BK-M", "colour": "black", "size": "M", "stock": 2},
        {"sku": "JK-0001-BK-L", "colour": "black", "size": "L", "stock": 14},
        {"sku": "JK-0001-RD-L", "colour": "red", "size": "L", "stock": 59},
    ],
}
TEE = {
    "sku": "TS-0001",
    "name": "Crew Tee",
    "price_eur": 19.99,
    "colours": ["navy", "white"],
    "sizes_in_stock": ["S", "M"],
}
POLO = {
    "sku": "TS-0002",
    "name": "Piqué Polo",
    "price_eur": 34.5,
    "colours": ["white"],
    "sizes_in_stock": ["M", "L", "XL"],
}
LONG = (
    "is a lovely piece that works for the office, for weekends away, for dinners out "
    "with friends, for travelling light and for pretty much any plan you have this season"
)


def _evidence(*, said="a tee under 60 please", notes=None):
    evidence = evidence_start(
        vocabulary=VOCABULARY, page_product=COAT, shopper_texts=[said], notes=notes
    )
    evidence.add_result({"products": [TEE, POLO], "total": 2, "offset": 0}, {"max_price": 60})
    return evidence


def _ground(text: str, **kwargs) -> str:
    return answer_ground(text, _evidence(**kwargs))[0]


# --- a claim is about one product -------------------------------------------------------


def test_two_products_prices_swapped_are_each_corrected_to_their_own():
    shown = _ground("The **Crew Tee** is €34.50 and the **Piqué Polo** is €19.99.")
    assert shown == "The **Crew Tee** is €19.99 and the **Piqué Polo** is €34.50."


def test_an_amount_for_a_product_named_after_it_is_that_products():
    text = "The **Crew Tee** is cheaper: €19.99 against €34.50 for the **Piqué Polo**."
    assert _ground(text) == text
    wrong = "The **Crew Tee** is €3, and €3 for the **Piqué Polo**."
    assert _ground(wrong) == "The **Crew Tee** is €19.99, and €34.50 for the **Piqué Polo**."


def test_a_difference_of_two_prices_is_no_third_products_price():
    shown = _ground("The **Harbour Trench Coat** costs €14.51.")
    assert shown == "The **Harbour Trench Coat** costs €129.00."


def test_a_shoppers_figure_is_no_products_price_but_is_theirs_to_hear():
    shown = _ground("The **Crew Tee** is €60, well under your €60.")
    assert shown == "The **Crew Tee** is €19.99, well under your €60."


@pytest.mark.parametrize(
    "notes", [None, "[fact · stated 2026-02-02] The shopper's budget is up to 50 GBP."]
)
def test_a_budget_in_pounds_said_in_euros_at_the_shops_rate_is_the_shoppers(settings, notes):
    settings.SHOP_EXCHANGE_RATES = {"GBP": 1.2}
    said = "I'm not spending more than 50 pounds" if notes is None else "hello"
    text = "Noted: a budget of 50 GBP, about 60 euros at the shop's rate (1 GBP = 1.2 EUR)."
    assert _ground(text, said=said, notes=notes) == text
    # At another rate, the same figure is no one's.
    settings.SHOP_EXCHANGE_RATES = {"GBP": 1.5}
    assert _ground(text, said=said, notes=notes) != text


def test_a_sum_is_never_corrected_to_one_price():
    assert _ground("The **Crew Tee** is €30 for both together.") == DROPPED_LINES["price"]


def test_a_rounded_price_is_rounded_to_the_nearest_euro_only():
    assert _ground("The **Crew Tee** is about €20.") == "The **Crew Tee** is about €20."
    assert _ground("The **Crew Tee** is €19.") == "The **Crew Tee** is €19.99."


# --- every form of money ----------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    ["is $25", "is £25.00", "is twenty-five euros", "will set you back 25 quid", "is US$25"],
)
def test_a_price_in_any_currency_or_in_words_is_held_to_the_catalog(said):
    shown = _ground(f"The **Crew Tee** {said}.")
    assert "25" not in shown and "€19.99" in shown, shown


@pytest.mark.parametrize(
    "text",
    [
        "The **Crew Tee** is 20 % off this week.",
        "Good news: the **Crew Tee** is half price today.",
        "Use code SAVE10 at checkout for the **Crew Tee**.",
        "You save 30% on the **Crew Tee** today.",
        "The **Crew Tee** is on sale right now.",
    ],
)
def test_an_offer_the_catalog_never_gave_is_dropped(text):
    shown = _ground(text + " It's soft.")
    assert shown == "It's soft.\n\n" + DROPPED_LINES["offer"]


@pytest.mark.parametrize(
    "text",
    [
        "The **Crew Tee** ships free within 2 days.",
        "You can return the **Crew Tee** within 60 days.",
        "Delivery is free on the **Crew Tee**.",
        "Order the **Crew Tee** today and it arrives tomorrow.",
        "The **Crew Tee** comes with a 2-year warranty.",
    ],
)
def test_a_delivery_or_returns_promise_is_dropped_the_shop_holds_no_policy(text):
    assert _ground(text) == DROPPED_LINES["policy"]


# --- every form of stock and availability -------------------------------------------------


@pytest.mark.parametrize(
    "text, shown",
    [
        (
            "The **Harbour Trench Coat** has 50 in red.",
            "The **Harbour Trench Coat** has 59 in red.",
        ),
        (
            "We have 100 pairs of the **Harbour Trench Coat** in stock in black.",
            "We have 16 pairs of the **Harbour Trench Coat** in stock in black.",
        ),
        (
            "There are 40 of the **Harbour Trench Coat** in black in size L.",
            "There are 14 of the **Harbour Trench Coat** in black in size L.",
        ),
        (
            "The **Harbour Trench Coat** is in stock in every size.",
            "The **Harbour Trench Coat** is in stock in sizes M and L.",
        ),
        (
            "We've got the **Crew Tee** in XL!",
            "The **Crew Tee** isn't in stock in size XL; it comes in sizes S and M.",
        ),
        (
            "We stock the **Crew Tee** in XL.",
            "The **Crew Tee** isn't in stock in size XL; it comes in sizes S and M.",
        ),
        (
            "There's the **Crew Tee** in XL too.",
            "The **Crew Tee** isn't in stock in size XL; it comes in sizes S and M.",
        ),
        (
            "The **Piqué Polo**: sizes available: S, M.",
            "The **Piqué Polo**: sizes available: M, L and XL.",
        ),
    ],
)
def test_stock_and_availability_in_every_form_are_read_and_corrected(text, shown):
    assert _ground(text) == shown


def test_a_figure_about_a_product_no_reader_understands_is_dropped():
    shown = _ground("The **Crew Tee** is 3 cm longer than most.")
    assert shown == DROPPED_LINES["figure"]


def test_a_figure_the_products_own_description_states_passes():
    text = "The **Harbour Trench Coat** is 100% cotton."
    assert _ground(text) == text


# --- names exactly ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["Try the **Crew Tee Deluxe**.", "See the [Nordhavn Parka](/products/nordhavn-jk-0999/)."],
)
def test_a_name_that_is_no_products_exact_name_is_dropped(text):
    assert _ground(text) == DROPPED_LINES["name"]


def test_a_name_with_its_colour_or_price_beside_it_is_a_name():
    text = "- **Crew Tee (navy)** — €19.99"
    assert _ground(text) == text


# --- streaming never weakens the check -------------------------------------------------


def _streamed(text: str, evidence) -> list[str]:
    grounder = AnswerGrounder(evidence)
    pieces = [grounder.feed(text[i : i + 4]) for i in range(0, len(text), 4)]
    return [piece for piece in [*pieces, grounder.flush()] if piece]


def test_a_count_late_in_a_long_sentence_is_read_with_its_colour_said_early():
    # The truth in black, size L, is 14; 73 is every colour of size L.
    text = f"In black the **Harbour Trench Coat** {LONG}, and there are 14 left in size L."
    assert "".join(_streamed(text, _evidence())) == text
    wrong = text.replace("14 left", "30 left")
    assert "".join(_streamed(wrong, _evidence())) == text


def test_availability_late_in_a_long_sentence_is_checked():
    text = f"The **Crew Tee** {LONG}, and yes, it is in stock in size XL."
    shown = "".join(_streamed(text, _evidence()))
    assert "in stock in size XL." not in shown and "isn't in stock in size XL" in shown


def test_a_long_sentence_that_claims_nothing_early_still_streams_its_opening():
    text = "If you want something that " + LONG[30:] + ", the **Crew Tee** is €19.99."
    pieces = _streamed(text, _evidence())
    assert len(pieces) >= 2 and "".join(pieces) == text


# --- our own lines ----------------------------------------------------------------------


def test_the_honest_line_follows_the_answer_once_per_kind_never_inside_a_list():
    text = (
        "I found these:\n- **Crew Tee** — €19.99\n- **Alpine Parka** — warm.\n"
        "- **Ridge Fleece** — cosy.\n- **Piqué Polo** — €34.50\nWant another colour?"
    )
    shown = _ground(text)
    assert shown == (
        "I found these:\n- **Crew Tee** — €19.99\n- **Piqué Polo** — €34.50\n"
        "Want another colour?\n\n" + DROPPED_LINES["name"]
    )


def test_an_answer_over_two_rounds_says_each_honest_line_once():
    report = GroundingReport()
    said = []
    for text in ("Everything is €5 today. The **Crew Tee** is soft.", "And €7 tomorrow."):
        grounder = AnswerGrounder(_evidence(), report)
        said.append(grounder.feed(text) + grounder.flush())
    assert "".join(said).count(DROPPED_LINES["price"]) == 1


def test_an_answer_that_lost_nothing_has_no_honest_line():
    text = "The **Crew Tee** comes in navy and white. It has only 2 colours, both soft."
    shown = _ground(text)
    assert shown == text


# --- the shopper's own figures ------------------------------------------------------------

REMEMBERED = (
    "<memory-notes>\n[fact · stated 2026-05-01] The shopper's budget is up to 45 EUR.\n"
    "[earlier visit · 2026-05-01] Shown: Crew Tee; €12.00\n</memory-notes>"
)
SAID_IN_CHAT = (
    "<memory-notes>\n[fact · this chat] The shopper's budget is up to 45 EUR.\n</memory-notes>"
)


@pytest.mark.parametrize("notes", [REMEMBERED, SAID_IN_CHAT])
def test_the_shoppers_remembered_or_stated_budget_is_theirs_to_hear(notes):
    text = "You told me your budget is up to 45 EUR."
    assert _ground(text, said="what do you remember about me?", notes=notes) == text
    # Every product claim still holds: a remembered price is no price of this turn.
    product = _ground("The **Crew Tee** is €12.00.", said="hi", notes=notes)
    assert product == "The **Crew Tee** is €19.99."
    assert _ground("Up to €12 it is.", said="hi", notes=notes) == DROPPED_LINES["price"]


def test_a_searchs_alternatives_back_what_is_said_of_them():
    evidence = evidence_start(vocabulary=VOCABULARY, page_product=None, shopper_texts=["hi"])
    evidence.add_result(
        {"products": [], "total": 0, "unmatched_words": ["quilted"], "alternatives": [POLO]},
        {"query": "quilted"},
    )
    said = "We have nothing quilted; the **Piqué Polo** is €34.50 instead."
    assert answer_ground(said, evidence)[0] == said
    # A price no alternative has is still dropped.
    assert "€30" not in answer_ground("The **Piqué Polo** is €30.", evidence)[0]
