"""The shopper's words for numbers, money and sizes, as every reader of them sees them."""

from __future__ import annotations

import pytest

from llm.shopper_words import (
    amounts_of_money,
    clothing_size_letter,
    currency_of,
    numbers_in_digits,
    shoe_size_eu,
    waist_size_letter,
)


@pytest.mark.parametrize(
    ("said", "digits"),
    [
        ("nothing over about sixty euros", "nothing over about 60 euros"),
        ("forty-two and a half", "42.5"),
        ("a hundred and fifty", "150"),
        ("the black one", "the black one"),
    ],
)
def test_number_words_read_as_digits(said, digits):
    assert numbers_in_digits(said) == digits


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("about sixty quid", ["60 GBP"]),
        ("it's $45 or €40", ["45 USD", "40 EUR"]),
        ("forty euros", ["40 EUR"]),
        ("£19.99 and 25 bucks", ["19.99 GBP", "25 USD"]),
        ("a size EU 42 please", []),
        ("size 40", []),
    ],
)
def test_money_is_a_figure_with_its_currency(text, labels):
    assert [money.label for money in amounts_of_money(text)] == labels


def test_currency_words_name_their_code():
    assert (currency_of("Quid"), currency_of("€"), currency_of("bucks")) == ("GBP", "EUR", "USD")
    assert currency_of("socks") is None


@pytest.mark.parametrize(
    ("system", "value", "womens", "eu"),
    [
        ("UK", 8, None, "42"),
        ("UK", 6, None, "39"),
        ("UK", 7.5, None, "41"),
        ("UK", 8.5, None, "42.5"),
        ("US", 9, None, "42"),
        ("US", 8, True, "39"),
        ("EU", 42.5, None, "42.5"),
        ("UK", 30, None, None),
        ("EU", float("nan"), None, None),
        ("JP", 26, None, None),
    ],
)
def test_shoe_sizes_convert_to_the_shops_eu_numbers(system, value, womens, eu):
    assert shoe_size_eu(system, value, womens=womens) == eu


def test_numbered_clothing_and_waists_convert_to_letters():
    assert clothing_size_letter("UK", 12) == "M"
    assert clothing_size_letter("US", 8) == "M"
    assert clothing_size_letter("EU", 40) == "M"
    assert clothing_size_letter("UK", 13) is None
    assert waist_size_letter(32) == "M"
    assert waist_size_letter(29) == "S"
    assert waist_size_letter(90) is None
