"""Words every reader of the judge shares: the shopper's own pronouns and garment nouns."""

from __future__ import annotations

import re

from llm.fact_schema import GARMENT_SLOTS

FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|our|us|let's)\b", re.I
)
# Plural garment nouns a size or a habit is given for.
GARMENT_NOUNS = (
    r"(?:tops|t-shirts|tees|shirts|blouses|jumpers|sweaters|knitwear|knits|hoodies|shoes|sneakers|"
    r"trainers|boots|sandals|jackets|coats|dresses|jeans|trousers|pants|chinos|skirts|shorts|"
    r"bottoms)"
)
GARMENT_WORDS = {word: slot for slot, words in GARMENT_SLOTS.items() for word in words}
GARMENT = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, GARMENT_WORDS), key=len, reverse=True)) + r")\b", re.I
)

_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_BELOW_HUNDRED = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[-\s](?:{'|'.join(list(_UNITS)[:9])}))?|(?:{'|'.join(_UNITS)}))"
)
_NUMBER_WORDS = re.compile(
    rf"\b(?:(?P<hundreds>a|{'|'.join(list(_UNITS)[:9])})\s+hundred"
    rf"(?:\s+(?:and\s+)?(?P<rest>{_BELOW_HUNDRED}))?|(?P<alone>{_BELOW_HUNDRED}))\b"
    r"(?P<half>\s+and\s+a\s+half)?",
    re.I,
)


def _below_hundred(words: str) -> int:
    parts = re.split(r"[-\s]+", words.lower())
    return sum(_TENS.get(part, _UNITS.get(part, 0)) for part in parts)


def _number(match: re.Match) -> str:
    if match.group("hundreds"):
        count = (
            1 if match.group("hundreds").lower() == "a" else _UNITS[match.group("hundreds").lower()]
        )
        value = count * 100 + (_below_hundred(match.group("rest")) if match.group("rest") else 0)
    elif match.group("alone").lower() == "one":
        return match.group(0)  # "the black one", "one size up": a word, not a figure
    else:
        value = _below_hundred(match.group("alone"))
    return f"{value}.5" if match.group("half") else str(value)


def numbers_in_digits(text: str) -> str:
    """Number words as digits, so every reader reads one spelling of a figure:
    "nothing over about sixty euros" -> "... 60 euros", "forty-two and a half" -> "42.5",
    "a hundred and fifty" -> "150"."""
    return _NUMBER_WORDS.sub(_number, text)
