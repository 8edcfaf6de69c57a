"""The shopper's words for numbers, money and sizes, as every reader of them sees them."""

from __future__ import annotations

import pytest

from llm.shopper_words import (
    amounts_of_money,
    clothing_size_letter,
    currency_of,
    numbers_in_digits,
    shoe_size_eu,
    size_said,
    waist_size_letter,
)


@pytest.mark.parametrize(
    ("text", "shop", "sentence"),
    [
        ("I'm a UK 8 in shoes", "42", "UK 8, that is EU 42 here"),
        ("I wear a US 9 shoe", "42", "US 9, that is EU 42 here"),
        ("boots, EU 45", "45", "EU 45"),
        ("a dress in a UK 12", "M", "UK 12, that is M here"),
        ("jeans in a 34 waist", "L", "a 34 waist, that is L here"),
        ("W32 L30 please", "M", "a 32 waist, that is M here"),
    ],
)
def test_a_size_in_another_system_is_read_as_the_shops_and_said_back(text, shop, sentence):
    said = size_said(text)
    assert said is not None and said.shop == shop and said.sentence == sentence


def test_a_number_without_a_system_or_a_footwear_word_is_no_size_said():
    assert size_said("jeans under 80") is None
    assert size_said("UK 8", footwear=True).shop == "42"
    assert size_said("UK 8", footwear=False).shop == "S"


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
