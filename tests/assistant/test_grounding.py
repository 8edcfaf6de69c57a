"""The grounding check as a pure function: each kind of claim, backed and not."""

from __future__ import annotations

import pytest

from assistant.turn.agent import _answer_cards
from assistant.turn.grounding import DROPPED_LINES, AnswerGrounder, answer_ground
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
    "variants": [
        {"sku": "JK-0001-BK-M", "colour": "black", "size": "M", "stock": 2},
        {"sku": "JK-0001-RD-L", "colour": "red", "size": "L", "stock": 13},
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


def _evidence(*, page=COAT, said=("a tee under 60 please",)):
    evidence = evidence_start(vocabulary=VOCABULARY, page_product=page, shopper_texts=said)
    evidence.add_result({"products": [TEE, POLO], "total": 2, "offset": 0}, {"max_price": 60})
    return evidence


def _ground(text: str, **kwargs):
    return answer_ground(text, _evidence(**kwargs))


# --- money ----------------------------------------------------------------------------------


def test_a_true_price_and_the_shoppers_own_figure_pass_unchanged():
    text = "The **Crew Tee** is €19.99, well under your €60. The **Piqué Polo** costs 34.50 EUR."
    shown, report = _ground(text)
    assert shown == text
    assert report.counts() == {"checked": 5, "backed": 5, "corrected": 0, "dropped": 0}


def test_a_wrong_price_of_a_named_product_is_corrected_from_the_catalog():
    shown, report = _ground("The **Harbour Trench Coat** is yours for €99.")
    assert shown == "The **Harbour Trench Coat** is yours for €129.00."
    assert report.counts()["corrected"] == 1


def test_a_price_about_no_product_is_dropped_with_an_honest_line():
    shown, report = _ground("Everything is €5 today! Here are two tees.", page=None)
    assert "€5" not in shown
    # The honest line is said after the answer, in a paragraph of its own.
    assert shown == "Here are two tees.\n\n" + DROPPED_LINES["price"]
    assert report.counts()["dropped"] == 1


def test_a_budget_the_shopper_never_gave_is_not_turned_into_a_price():
    shown, _ = _ground("Both tees are under €45.")
    assert "€45" not in shown and "€19.99" not in shown


def test_a_sum_of_two_products_is_dropped_not_corrected_to_one_price():
    shown, _ = _ground("The **Crew Tee** and the **Piqué Polo** together: €70.")
    assert shown == DROPPED_LINES["price"]


def test_a_rounded_price_and_a_price_difference_are_backed():
    text = "The **Piqué Polo** is about €35, €14.51 more than the **Crew Tee**."
    assert _ground(text)[0] == text


# --- stock counts ---------------------------------------------------------------------------


def test_a_true_stock_count_passes():
    text = "Yes, the **Harbour Trench Coat** is in stock in size L in red (13 left)."
    assert _ground(text)[0] == text


def test_a_wrong_stock_count_is_corrected():
    shown, report = _ground("Yes, the **Harbour Trench Coat** is in stock in size L (20 left).")
    assert shown == "Yes, the **Harbour Trench Coat** is in stock in size L (13 left)."
    assert report.by_kind()["stock"] == {"corrected": 1}


def test_a_count_for_a_colour_that_has_none_in_the_size_says_so():
    shown, _ = _ground("Yes, the **Harbour Trench Coat** is in stock in size L in black (13 left).")
    assert "13 left" not in shown
    assert shown == (
        "The **Harbour Trench Coat** isn't in stock in size L in black; it comes in sizes M."
    )


def test_a_count_no_variant_data_backs_is_dropped():
    shown, report = _ground("The **Crew Tee** has only 3 left in M.")
    assert shown == DROPPED_LINES["stock"]
    assert report.by_kind()["stock"] == {"dropped": 1}


# --- availability, sizes and colours ---------------------------------------------------------


def test_a_colour_out_of_stock_is_never_said_to_be_in_stock():
    shown, report = _ground("Good news: the **Harbour Trench Coat** is in stock in yellow.")
    assert shown == (
        "The **Harbour Trench Coat** isn't in stock in yellow right now; it comes in black and red."
    )
    assert report.by_kind()["availability"] == {"corrected": 1}


def test_a_size_out_of_stock_is_corrected():
    shown, _ = _ground("Yes, we have the **Crew Tee** in XL.")
    assert shown == "The **Crew Tee** isn't in stock in size XL; it comes in sizes S and M."


def test_a_true_availability_passes():
    text = "Yes, the **Crew Tee** is in stock in M."
    assert _ground(text)[0] == text


def test_a_wrong_list_of_sizes_is_replaced_by_the_sizes_in_stock():
    shown, _ = _ground("The **Piqué Polo** is in stock in sizes S, M and L.")
    assert shown == "The **Piqué Polo** is in stock in sizes M, L and XL."


def test_sizes_in_one_colour_are_those_of_that_colour():
    shown, _ = _ground("In red the **Harbour Trench Coat** comes in sizes M and L.")
    assert shown == "In red the **Harbour Trench Coat** comes in sizes L."


def test_a_wrong_list_of_colours_is_replaced_by_the_colours_in_stock():
    shown, _ = _ground("The **Crew Tee** comes in navy, white and red.")
    assert shown == "The **Crew Tee** comes in navy and white."


def test_a_claim_without_a_product_name_is_about_the_one_just_named():
    text = "Here's the **Piqué Polo**: a classic. It comes in white and red."
    shown, _ = _ground(text)
    assert shown == "Here's the **Piqué Polo**: a classic. It comes in white."


# --- product names --------------------------------------------------------------------------


def test_a_product_no_tool_returned_is_dropped_and_said_once():
    text = (
        "I found these:\n- **Crew Tee** — soft cotton.\n- **Alpine Down Parka** — warm.\n"
        "- **Ridge Fleece** — cosy.\n- **Piqué Polo** — smart."
    )
    shown, report = _ground(text)
    assert "Parka" not in shown and "Fleece" not in shown
    assert shown.count(DROPPED_LINES["name"]) == 1
    assert "- **Crew Tee** — soft cotton.\n" in shown and "- **Piqué Polo** — smart." in shown
    assert report.by_kind()["name"] == {"backed": 2, "dropped": 2}


def test_a_linked_product_not_returned_is_dropped():
    shown, _ = _ground("Try the [Alpine Down Parka](/products/alpine-down-parka-jk-0099/).")
    assert "Parka" not in shown


def test_bold_words_that_name_no_product_are_not_product_claims():
    text = "**Tip:** size up for layering. **M** is the usual pick."
    shown, report = _ground(text)
    assert shown == text and report.counts()["checked"] == 0


def test_style_claims_pass_unchecked():
    text = "The **Crew Tee** is perfect for summer and looks great with jeans."
    shown, report = _ground(text)
    assert shown == text and report.by_kind() == {"name": {"backed": 1}}


# --- streaming --------------------------------------------------------------------------------


def test_streamed_text_is_released_a_whole_sentence_at_a_time():
    text = "The **Crew Tee** costs €19.99. It comes in navy and white.\n- **Piqué Polo** — smart."
    grounder = AnswerGrounder(_evidence())
    released = []
    for i in range(0, len(text), 3):
        piece = grounder.feed(text[i : i + 3])
        if piece:
            released.append(piece)
    released.append(grounder.flush())
    assert "".join(released) == text == answer_ground(text, _evidence())[0]
    assert released == [
        "The **Crew Tee** costs €19.99. ",
        "It comes in navy and white.\n",
        "- **Piqué Polo** — smart.",
    ]


def test_a_sentence_that_never_ends_still_streams_in_checked_pieces():
    grounder = AnswerGrounder(_evidence())
    released = [grounder.feed("word ") for _ in range(200)]
    assert sum(1 for piece in released if piece) >= 3
    assert all(len(piece) <= 160 for piece in released)
    assert "".join(released) + grounder.flush() == "word " * 200
    # Still checked: a wrong price in a long run-on is corrected all the same.
    grounder = AnswerGrounder(_evidence())
    text = "and so on " * 20 + "the **Crew Tee** is €2, " + "and more " * 30
    shown = "".join(grounder.feed(word + " ") for word in text.split(" ")) + grounder.flush()
    assert "€2," not in shown and "€19.99" in shown


def test_a_decimal_point_is_no_sentence_end():
    grounder = AnswerGrounder(_evidence())
    assert grounder.feed("It is €19.") == ""
    assert grounder.feed("99 in all. ") == ""
    assert grounder.feed("Next") == "It is €19.99 in all. "


@pytest.mark.parametrize(
    "text, expected",
    [
        # A list names its products: the page's product, named in passing, is no card.
        (
            "Cheaper than the Harbour Trench Coat:\n- **Piqué Polo** — smart.\n- **Crew Tee**.",
            ["TS-0002", "TS-0001"],
        ),
        ("The **Crew Tee** or the **Harbour Trench Coat**?", ["TS-0001", "JK-0001"]),
    ],
)
def test_the_cards_are_the_products_the_answer_lists_in_its_order(text, expected):
    seen = [COAT, TEE, POLO]
    assert [card["sku"] for card in _answer_cards(text, seen, [TEE])] == expected


# --- what a sentence says that is no claim of stock -----------------------------------------


def test_a_size_figure_before_in_stock_is_no_count_of_pieces():
    text = "I couldn't find a linen tee in size 42 in stock, so here are other tees."
    shown, report = _ground(text)
    assert shown == text
    assert report.counts()["dropped"] == 0


def test_the_sizes_of_a_hit_in_its_only_colour_are_backed():
    text = "The **Piqué Polo** comes in white; sizes M, L and XL."
    shown, report = _ground(text)
    assert shown == text
    assert report.counts()["dropped"] == 0 and report.counts()["corrected"] == 0
