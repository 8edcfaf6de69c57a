"""Small word helpers the assistant's stages share."""

from __future__ import annotations

import re

_STOP_WORDS = frozenset(
    "a an and any are can do for from got have i i'm im in is it me my need of on or "
    "please show some something that the them to want with you your looking find buy "
    "sell stock carry recommend suggest shopping searching this what which nice good great "
    "cool new cute pretty lovely stylish else other".split()
)


# The words for a place in the list shown, by position: "the second", "2nd", "number two".
ORDINAL_WORDS = (
    ("first", "1st", "one", "1"),
    ("second", "2nd", "two", "2"),
    ("third", "3rd", "three", "3"),
    ("fourth", "4th", "four", "4"),
)
# Either way of writing a place alone, the last included: "first|1st|...|last".
ORDINAL_ALTERNATIVES = "|".join(
    [*(f"{word}|{short}" for word, short, _, _ in ORDINAL_WORDS), "last"]
)


def singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def and_join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def free_words(lowered: str) -> list[str]:
    words = re.findall(r"[a-z][a-z\-]+", lowered)
    return [w for w in words if w not in _STOP_WORDS and len(w) > 2][:4]


def union(first: list[str], second: list[str]) -> list[str]:
    return first + [item for item in second if item not in first]
