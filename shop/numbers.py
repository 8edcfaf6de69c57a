"""The one rule for a number that comes from outside the process: a chat frame, a REST
request, a catalog page's filters, a model's tool call.

Such a number is a plain number (never a boolean or a string standing for one), finite (no
NaN or infinity, which JSON decoders and models both produce), of bounded size (an integer
of 400 digits is no price and no offset: it is refused before anything converts it to a
float, where it would overflow) and within the range the caller names. Anything else is a
`NumberRefused` saying what is accepted, which each caller turns into its own refusal (a
400 frame error, a form error, an "invalid arguments" tool result) before anything is
read or written.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from typing import Any

# The most a price filter may say: far above any price the catalog can hold (a price has
# at most 7 digits, 99,999.99 EUR), far below where a float loses cents.
MAX_PRICE_EUR = 1_000_000
# How many characters a number written as text may have before it is even parsed.
MAX_NUMBER_CHARS = 20


class NumberRefused(ValueError):
    """A number from outside that is not one, or not in range: the message says what is."""


def _shown(bound: float) -> str:
    return f"{int(bound):,}" if float(bound).is_integer() else f"{bound:,}"


def _refusal(name: str, *, low: float, high: float, whole: bool) -> NumberRefused:
    kind = "a whole number" if whole else "a number"
    return NumberRefused(f"{name} must be {kind} from {_shown(low)} to {_shown(high)}")


def number_checked(
    value: Any, *, name: str, low: float, high: float, whole: bool = False
) -> int | float:
    """`value` when it is a finite number (with `whole`, an integer: JSON writes whole numbers
    without a point, so 3.0 is refused) from `low` to `high`.

    Raises NumberRefused otherwise. An integer is compared as it is (Python compares a huge
    integer with a float exactly, without converting it), so no size of integer overflows.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _refusal(name, low=low, high=high, whole=whole)
    if isinstance(value, float) and (whole or not math.isfinite(value)):
        raise _refusal(name, low=low, high=high, whole=whole)
    if not low <= value <= high:
        raise _refusal(name, low=low, high=high, whole=whole)
    return int(value) if whole else value


def number_from_text(
    raw: str | Decimal, *, name: str, low: float, high: float, whole: bool = False
) -> int | float:
    """The same rule for a number written as text (a query string, a form field): at most
    MAX_NUMBER_CHARS characters, read as a decimal, then checked as above."""
    if isinstance(raw, Decimal):
        number = raw
    else:
        text = str(raw).strip()
        if not text or len(text) > MAX_NUMBER_CHARS:
            raise _refusal(name, low=low, high=high, whole=whole)
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise _refusal(name, low=low, high=high, whole=whole) from None
    if not number.is_finite() or (whole and number != number.to_integral_value()):
        raise _refusal(name, low=low, high=high, whole=whole)
    if not Decimal(str(low)) <= number <= Decimal(str(high)):
        raise _refusal(name, low=low, high=high, whole=whole)
    return int(number) if whole else float(number)


def price_limit_checked(value: Any, *, name: str = "max_price") -> float:
    """A price filter in EUR from a client or a model: 0 to MAX_PRICE_EUR."""
    return float(number_checked(value, name=name, low=0, high=MAX_PRICE_EUR))
