"""The shopper's words for sizes, numbers, money and occasions, defined once.

The fact judge, the offline assistant, the memory policy's screening and the grounding check
all read a shopper's (or a model's) figures; each reading the same phrase its own way is how
"UK 8" became a tops size in one place and EU 42 in another. Everything here is general
language and the shop's own systems (letters for clothes, EU numbers for shoes, euros), so
`llm` still imports nothing of the project.

Conversions follow common size charts; they are approximate by nature, which is why a
converted size is always said back to the shopper with their own wording beside it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Occasions have a module of their own for their length; they are read from here like the rest.
from llm.shopper_words.occasions import (
    OCCASION_PHRASES,
    OCCASIONS,
    OCCASIONS_IN_REQUESTS,
    occasion_evidence,
    occasion_evidence_words,
)

# --- Numbers said in words --------------------------------------------------------------

_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
NUMBER_WORDS: dict[str, int] = {**_UNITS, **_TENS}
_BELOW_HUNDRED = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[-\s](?:{'|'.join(list(_UNITS)[:9])}))?|(?:{'|'.join(_UNITS)}))"
)
NUMBER_PHRASE = re.compile(
    rf"\b(?:(?P<hundreds>a|{'|'.join(list(_UNITS)[:9])})\s+hundred"
    rf"(?:\s+(?:and\s+)?(?P<rest>{_BELOW_HUNDRED}))?|(?P<alone>{_BELOW_HUNDRED}))\b"
    r"(?P<half>\s+and\s+a\s+half)?",
    re.I,
)


def _below_hundred(words: str) -> int:
    parts = re.split(r"[-\s]+", words.lower())
    return sum(_TENS.get(part, _UNITS.get(part, 0)) for part in parts)


def _number_value(match: re.Match) -> str | None:
    if match.group("hundreds"):
        lead = match.group("hundreds").lower()
        value = (1 if lead == "a" else _UNITS[lead]) * 100
        value += _below_hundred(match.group("rest")) if match.group("rest") else 0
    elif match.group("alone").lower() == "one":
        return None  # "the black one", "one size up": a word, not a figure
    else:
        value = _below_hundred(match.group("alone"))
    return f"{value}.5" if match.group("half") else str(value)


def numbers_in_digits(text: str, *, keep_length: bool = False) -> str:
    """Number words as digits, so every reader reads one spelling of a figure:
    "nothing over about sixty euros" -> "... 60 euros", "forty-two and a half" -> "42.5",
    "a hundred and fifty" -> "150". With `keep_length`, each figure is padded to the width
    of its words, so positions found in the result are positions in `text`."""

    def figure(match: re.Match) -> str:
        value = _number_value(match) or match.group(0)
        return value.ljust(len(match.group(0))) if keep_length else value

    def half(match: re.Match) -> str:
        value = f"{match.group(1)}.5"
        return value.ljust(len(match.group(0))) if keep_length else value

    return _DIGITS_AND_A_HALF.sub(half, NUMBER_PHRASE.sub(figure, text))


# A half said in words after digits: "9 and a half", "9½".
_DIGITS_AND_A_HALF = re.compile(r"\b(\d{1,2})(?:\s+and\s+a\s+half\b|\s*\u00bd)", re.I)


# --- Money ------------------------------------------------------------------------------

SHOP_CURRENCY = "EUR"
# Each sign or word a shopper (or a model) writes for a currency, by ISO code.
CURRENCY_WORDS: dict[str, tuple[str, ...]] = {
    "EUR": ("€", "eur", "euro", "euros"),
    "GBP": ("£", "gbp", "pound", "pounds", "quid", "sterling"),
    "USD": ("$", "usd", "dollar", "dollars", "bucks", "us$"),
}
_CURRENCY_BY_WORD = {word: code for code, words in CURRENCY_WORDS.items() for word in words}
_SIGNS = "€£$"
# Every currency word as one alternation, longest first, for other patterns to embed.
CURRENCY_WORD_ALTERNATIVES = "|".join(
    sorted(
        (re.escape(w) for w in _CURRENCY_BY_WORD if w not in _SIGNS),
        key=len,
        reverse=True,
    )
)
# A currency next to a figure, either side: "€40", "40 €", "£35", "40 quid", "USD 40".
CURRENCY_SIGN = re.compile(r"[€£$]|\bus\$")
CURRENCY_WORD = re.compile(rf"\b(?:{CURRENCY_WORD_ALTERNATIVES})\b", re.I)
_FIGURE = r"\d{1,7}(?:[.,]\d{1,2})?"
MONEY = re.compile(
    rf"(?P<before>[€£$]|\b(?:{CURRENCY_WORD_ALTERNATIVES})\b)\s?(?P<amount_a>{_FIGURE})"
    rf"|(?P<amount_b>{_FIGURE})\s?(?P<after>[€£$]|\b(?:{CURRENCY_WORD_ALTERNATIVES})\b)",
    re.I,
)


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str  # ISO code
    start: int
    end: int

    @property
    def label(self) -> str:
        figure = f"{self.amount:g}" if self.amount != int(self.amount) else str(int(self.amount))
        return f"{figure} {self.currency}"


def currency_of(word: str) -> str | None:
    """The ISO code a sign or word stands for ("quid" -> "GBP"), or None."""
    return _CURRENCY_BY_WORD.get(word.strip().lower())


def amounts_of_money(text: str) -> list[Money]:
    """Every figure with a currency beside it, number words read as digits first.

    Positions refer to the digit form of the text (`numbers_in_digits(text)`)."""
    digits = numbers_in_digits(text)
    found: list[Money] = []
    for match in MONEY.finditer(digits):
        amount = (match.group("amount_a") or match.group("amount_b")).replace(",", ".")
        code = currency_of(match.group("before") or match.group("after"))
        value = float(amount)
        if code and math.isfinite(value):
            found.append(Money(value, code, match.start(), match.end()))
    return found


# --- Sizes ------------------------------------------------------------------------------

LETTER_SIZES = ("XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL")
# The letters as one alternation, longest first, for patterns that read a size in a message.
LETTER_SIZE_ALTERNATIVES = "|".join(sorted(LETTER_SIZES, key=len, reverse=True))
# The letters no English word shares ("M", "S" and "L" are words in lower case).
UNMISTAKABLE_LETTER_SIZES = "|".join(s for s in LETTER_SIZE_ALTERNATIVES.split("|") if len(s) > 1)
# Words for letter sizes, longest first when matched.
LETTER_SIZE_WORDS: dict[str, str] = {
    "double extra small": "XXS", "extra extra small": "XXS", "2xs": "XXS", "xxs": "XXS",
    "extra small": "XS", "extra-small": "XS", "x-small": "XS", "x small": "XS", "xs": "XS",
    "small": "S", "smalls": "S", "medium": "M", "mediums": "M", "med": "M",
    "large": "L", "larges": "L",
    "extra large": "XL", "extra-large": "XL", "x-large": "XL", "x large": "XL", "xl": "XL",
    "double extra large": "XXL", "extra extra large": "XXL", "double xl": "XXL",
    "xx-large": "XXL", "xx large": "XXL", "2xl": "XXL", "xxl": "XXL",
    "triple xl": "XXXL", "3xl": "XXXL", "xxxl": "XXXL",
}  # fmt: skip
# The shop's shoe sizes, in EU numbers.
SHOP_SHOE_SIZES = tuple(str(n) for n in range(36, 47))
SHOE_SIZE_RANGE = (30.0, 50.0)

# UK whole sizes to EU (common charts); a UK half size is the whole size's EU plus a half,
# except 7.5, which the charts give as 41.
_UK_TO_EU = {3: 36, 4: 37, 5: 38, 6: 39, 7: 40, 8: 42, 9: 43, 10: 44, 11: 45, 12: 46, 13: 47}
_UK_HALF_EXCEPTIONS = {7.5: 41.0}
# Numbered women's clothing sizes (UK) to the shop's letters.
_UK_CLOTHING_TO_LETTER = {
    4: "XXS", 6: "XS", 8: "S", 10: "S", 12: "M", 14: "L", 16: "XL", 18: "XXL", 20: "XXXL",
}  # fmt: skip
# Waist in inches to letters (the shop's jeans and trousers come in letters).
_WAIST_TO_LETTER = ((27, "XS"), (30, "S"), (33, "M"), (36, "L"), (39, "XL"), (42, "XXL"))


def _figure(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def shoe_size_eu(system: str, value: float, *, womens: bool | None = None) -> str | None:
    """A shoe size in the shop's EU numbers: ("UK", 8) -> "42", ("US", 9) -> "42" (men's
    unless `womens`), ("EU", 42.5) -> "42.5". None when it is no shoe size of that system."""
    if not math.isfinite(value):
        return None
    system = system.upper()
    if system == "EU":
        low, high = SHOE_SIZE_RANGE
        return _figure(value) if low <= value <= high and (value * 2) == int(value * 2) else None
    if system == "US":
        return shoe_size_eu("UK", value - (2 if womens else 1))
    if system != "UK" or (value * 2) != int(value * 2):
        return None
    if value in _UK_HALF_EXCEPTIONS:
        return _figure(_UK_HALF_EXCEPTIONS[value])
    whole = int(value)
    if whole not in _UK_TO_EU:
        return None
    return _figure(_UK_TO_EU[whole] + (0.5 if value != whole else 0))


def clothing_size_letter(system: str, value: int) -> str | None:
    """A numbered clothing size in the shop's letters: ("UK", 12) -> "M", ("US", 8) -> "M",
    ("EU", 40) -> "M". None when the number is none of that system's."""
    offsets = {"UK": 0, "AU": 0, "US": 4, "EU": -28, "FR": -30, "IT": -32}
    offset = offsets.get(system.upper())
    if offset is None:
        return None
    return _UK_CLOTHING_TO_LETTER.get(value + offset)


def waist_size_letter(inches: float) -> str | None:
    """A waist measurement in the shop's letters (32 -> "M"); None outside 20-44 inches."""
    if not (math.isfinite(inches) and 20 <= inches <= 44):
        return None
    for bound, letter in _WAIST_TO_LETTER:
        if inches <= bound:
            return letter
    return "XXL"


def centimetres_to_inches(cm: float) -> int:
    return round(cm / 2.54)


# --- A size as said, in the shop's system ------------------------------------------------

# "UK 8", "8 UK", "EU 40", "US women's 8", "8.5", "42,5": a numbered size and its system.
SIZE_SAID = re.compile(
    r"(?<![\w.,])(?:(?P<before>uk|us|eu|au)\s*(?:(?P<g1>women'?s|womens|ladies'?|men'?s|mens)\s+)?)?"
    r"(?P<number>\d{1,2}(?:[.,]5)?)(?![\d%])"
    r"(?:\s*(?P<after>uk|us|eu|au)\b)?(?:\s*(?P<g2>women'?s|womens|ladies'?|men'?s|mens)\b)?",
    re.I,
)
_WOMENS = re.compile(r"\b(?:wom[ae]n'?s|womens|ladies'?|female)\b", re.I)
_CENTIMETRES = re.compile(r"(?<![\w.])(?P<cm>\d{2,3})\s*(?:cm|centimet(?:re|er)s?)\b", re.I)
# A bare shoe number below this is UK ("a 9 in shoes"); from it up, EU.
_EU_SHOE_FLOOR = 30


def _system_number(said: str) -> tuple[str | None, float, bool | None] | None:
    match = SIZE_SAID.fullmatch(said.strip())
    if not match:
        return None
    system = (match.group("before") or match.group("after") or "").upper() or None
    gender = match.group("g1") or match.group("g2") or ""
    womens = bool(_WOMENS.match(gender)) if gender else None
    return system, float(match.group("number").replace(",", ".")), womens


def size_in_shop_system(said: str, *, shoes: bool, womens: bool | None = None) -> str | None:
    """A size as the shopper said it, in the shop's system: EU numbers for shoes (UK 8 ->
    "42", US 10 -> "43", US women's 8 -> "39", a bare 9 -> UK 9 -> "43"), letters for
    clothes ("medium" -> "M", UK 12 -> "M", US 8 -> "M", EU 40 -> "M", a bare 14 -> UK 14 ->
    "L"; a bare number that is no UK size but an EU one, "36", is EU). None when it is none."""
    text = " ".join(said.split())
    letter = LETTER_SIZE_WORDS.get(text.lower()) or (
        text.upper() if text.upper() in LETTER_SIZES else None
    )
    if letter:
        return None if shoes else letter
    read = _system_number(text)
    if read is None:
        return None
    system, number, said_womens = read
    womens = said_womens if said_womens is not None else womens
    if shoes:
        if system is None:
            system = "EU" if number >= _EU_SHOE_FLOOR else "UK"
        return shoe_size_eu("UK" if system == "AU" else system, number, womens=womens)
    if number != int(number):
        return None
    if system is None:
        return clothing_size_letter("UK", int(number)) or (
            clothing_size_letter("EU", int(number)) if int(number) > 20 else None
        )
    return clothing_size_letter(system, int(number))


def sizes_said(text: str) -> set[str]:
    """Every size in the shop's system a text could mean: each numbered size read for shoes
    and for clothes in the system it names (or every system when it names none), letter
    words, and centimetres as whole inches. For checking that a size was said at all."""
    found: set[str] = set()
    lowered = numbers_in_digits(text).lower()
    for word, letter in LETTER_SIZE_WORDS.items():
        if re.search(rf"(?<![\w'\u2019-]){re.escape(word)}(?![\w'\u2019-])", lowered):
            found.add(letter)
    for match in SIZE_SAID.finditer(lowered):
        figure = match.group("number").replace(",", ".")
        found.add(_figure(float(figure)))
        named = match.group("before") or match.group("after")
        said = match.group(0).strip()
        for womens in (None, True):
            for shoes in (True, False):
                if named:
                    value = size_in_shop_system(said, shoes=shoes, womens=womens)
                    found |= {value} if value else set()
                else:
                    for system in ("UK", "US", "EU"):
                        value = size_in_shop_system(
                            f"{system} {figure}", shoes=shoes, womens=womens
                        )
                        found |= {value} if value else set()
    for match in _CENTIMETRES.finditer(lowered):
        found.add(str(centimetres_to_inches(float(match.group("cm")))))
    return found


def size_wording(value: str, text: str, *, shoes: bool) -> str | None:
    """How the text says a size that is `value` in the shop's system, when it says it in
    another system ("UK 8" for shoe size 42, "size 14" for L, "86 cm" for a 34 waist)."""
    lowered = numbers_in_digits(text)
    if re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d]|[.,]\d)", lowered):
        return None  # said in the shop's system already
    womens = bool(_WOMENS.search(lowered)) or None
    for match in SIZE_SAID.finditer(lowered):
        said = " ".join(match.group(0).split())
        if (
            said.replace(",", ".") != value
            and size_in_shop_system(said, shoes=shoes, womens=womens) == value
        ):
            system = match.group("before") or match.group("after")
            return said if system else f"size {said}"
    for match in _CENTIMETRES.finditer(lowered):
        if str(centimetres_to_inches(float(match.group("cm")))) == value:
            return f"{match.group('cm')} cm"
    return None


# --- Sizes said in a system the shop does not use ------------------------------------------

# "UK 8", "US 9.5", "EU 42", "size 8 UK", "uk8": a shoe or clothing size with its system.
SIZE_WITH_SYSTEM = re.compile(
    r"\b(?P<a>uk|us|eu)\s?(?:size\s)?(?P<n>\d{1,2}(?:\.5)?)\b"
    r"|\b(?:size\s)?(?P<m>\d{1,2}(?:\.5)?)\s?(?P<b>uk|us|eu)\b",
    re.I,
)
# Words that put a size on the feet.
FOOTWEAR_WORDS = r"shoes?|feet|foot|trainers?|sneakers?|boots?|sandals?|heels|loafers|footwear"
FOOTWEAR_CUE = re.compile(rf"\b({FOOTWEAR_WORDS})\b", re.I)
# A waist measurement: "34 waist", "a waist of 34", "W34", "32 inch waist", "34x32" (waist by
# leg length), "34/32".
WAIST = re.compile(
    r"\b(?P<a>\d{2})\s?(?:\"|in(?:ch(?:es)?)?|-inch)?\s?waist\b"
    r"|\bwaist(?:\s(?:size|of|is))*\s(?P<b>\d{2})\b"
    r"|\bw\s?(?P<c>\d{2})(?:\s?l\s?\d{2})?\b"
    r"|\b(?P<d>\d{2})\s?(?:x|/)\s?\d{2}\b",
    re.I,
)


@dataclass(frozen=True)
class SizeSaid:
    """A size the shopper gave in their own words, and the shop's size it is."""

    said: str  # as the shopper would write it: "UK 8", "a 34 waist"
    shop: str  # the shop's size: "42", "L"
    kind: str  # "shoe" | "clothing" | "waist"

    @property
    def sentence(self) -> str:
        """ "UK 8, that is EU 42 here"; a size already in the shop's terms is said as it is."""
        shop = f"EU {self.shop}" if self.kind == "shoe" else self.shop
        if self.said.replace(" ", "").upper() == shop.replace(" ", "").upper():
            return shop
        return f"{self.said}, that is {shop} here"


def size_said(text: str, *, footwear: bool | None = None) -> SizeSaid | None:
    """The first size in text given in a system, or as a waist, in the shop's sizes.

    A system's number is a shoe size with a footwear word or `footwear`, else a numbered
    clothing size; None when it is neither (or no size of that system).
    """
    waist = WAIST.search(text)
    if waist:
        inches = int(next(group for group in waist.groups() if group))
        letter = waist_size_letter(inches)
        if letter:
            return SizeSaid(f"a {inches} waist", letter, "waist")
    for match in SIZE_WITH_SYSTEM.finditer(text):
        system = (match.group("a") or match.group("b")).upper()
        value = float(match.group("n") or match.group("m"))
        on_feet = footwear if footwear is not None else bool(FOOTWEAR_CUE.search(text))
        if on_feet or (system == "EU" and value >= SHOE_SIZE_RANGE[0]):
            eu = shoe_size_eu(system, value)
            if eu:
                return SizeSaid(f"{system} {_figure(value)}", eu, "shoe")
        elif value == int(value):
            letter = clothing_size_letter(system, int(value))
            if letter:
                return SizeSaid(f"{system} {int(value)}", letter, "clothing")
    return None


def money_said(text: str) -> Money | None:
    """The first figure with a currency in text, number words read as digits."""
    found = amounts_of_money(text)
    return found[0] if found else None


__all__ = [  # the occasions' names, read from here
    "OCCASIONS",
    "OCCASIONS_IN_REQUESTS",
    "OCCASION_PHRASES",
    "occasion_evidence",
    "occasion_evidence_words",
]
