"""The one rule for a number from a client or a model: finite, of bounded size, in range;
anything else refused with what is accepted, never an overflow."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shop.numbers import NumberRefused, number_checked, number_from_text, price_limit_checked

HUGE = 10**400
HUGER = 10**5000


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        float("inf"),
        float("-inf"),
        HUGE,
        -HUGE,
        HUGER,
        1e308,
        -0.01,
        1_000_000.01,
        True,
        False,
        "60",
        None,
        [60],
        Decimal("60"),
    ],
    ids=lambda value: (
        f"int of {len(str(abs(value) // 10**4000)) + 4000} digits"
        if isinstance(value, int) and abs(value) > 10**4000
        else repr(value)[:20]
    ),
)
def test_a_price_filter_that_is_no_price_is_refused_saying_what_is_accepted(value):
    with pytest.raises(NumberRefused) as refused:
        price_limit_checked(value)
    assert str(refused.value) == "max_price must be a number from 0 to 1,000,000"


@pytest.mark.parametrize(
    ("value", "kept"), [(0, 0.0), (60, 60.0), (59.99, 59.99), (1_000_000, 1e6)]
)
def test_a_price_filter_in_range_is_kept(value, kept):
    assert price_limit_checked(value) == kept


def test_a_whole_number_is_an_integer_in_range():
    assert number_checked(7, name="offset", low=0, high=10, whole=True) == 7
    for value in (3.0, 2.5, -1, 11, HUGE, float("nan"), True):
        with pytest.raises(NumberRefused, match="offset must be a whole number from 0 to 10"):
            number_checked(value, name="offset", low=0, high=10, whole=True)


@pytest.mark.parametrize(
    "raw",
    ["9" * 400, "9" * 5000, "NaN", "Infinity", "-1", "1e999999", "abc", "", "  ", "1000001"],
    ids=lambda raw: raw[:12],
)
def test_a_number_written_as_text_is_held_to_the_same_rule(raw):
    with pytest.raises(NumberRefused):
        number_from_text(raw, name="Max price", low=0, high=1_000_000)


def test_a_number_written_as_text_in_range_is_read():
    assert number_from_text(" 60.5 ", name="Max price", low=0, high=100) == 60.5
    assert number_from_text(Decimal("0"), name="Max price", low=0, high=100) == 0.0
    assert number_from_text("12", name="n", low=0, high=100, whole=True) == 12
