"""The shopper's words are defined once: a second copy of a vocabulary is how readers drift.

Every module of the apps is read for collections and regular-expression alternations that
list four or more words of one vocabulary (letter sizes, numbers in words, currencies,
occasions); only the `llm.shopper_words` package may. The shop's own catalog sizes are its data, not
a shopper's words, and the shop imports nothing of the project, so it is not read.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from llm.shopper_words import (
    CURRENCY_WORDS,
    LETTER_SIZES,
    NUMBER_WORDS,
    OCCASIONS,
    OCCASIONS_IN_REQUESTS,
)

ROOT = Path(__file__).resolve().parents[2]
READ = ("assistant", "config", "llm", "memoryapp", "memoryserver")
HOME = ROOT / "llm" / "shopper_words"
CALENDAR = {"spring", "summer", "autumn", "winter", "christmas"}
VOCABULARIES = {
    "letter sizes": {size.lower() for size in LETTER_SIZES},
    "numbers in words": set(NUMBER_WORDS),
    "currencies": {word for words in CURRENCY_WORDS.values() for word in words},
    # The seasons and Christmas are the calendar's words too (dates read them): not counted.
    "occasions": (set(OCCASIONS) | set(OCCASIONS_IN_REQUESTS)) - CALENDAR,
}
AT_MOST = 3
_REGEX_EDGE = re.compile(r"^(?:\\b|\(\?:|\(\?i:|\(|\^)+|(?:\\b|\)|\$|\?|s\?)+$")


def _alternatives(text: str) -> list[str]:
    """The words a pattern offers as alternatives: "(?:eur|euros?|quid)" gives all three."""
    if "|" not in text:
        return []
    return [_REGEX_EDGE.sub("", part).lower() for part in text.split("|")]


def _listed_words(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """Each collection's string members and each string's alternatives, by line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            members = node.keys
        elif isinstance(node, ast.Set | ast.Tuple | ast.List):
            members = node.elts
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, _alternatives(node.value)))
            continue
        else:
            continue
        words = [
            m.value.lower()
            for m in members
            if isinstance(m, ast.Constant) and isinstance(m.value, str)
        ]
        found.append((node.lineno, words))
    return found


def copies_in(source: str) -> list[str]:
    copies = []
    for line, words in _listed_words(ast.parse(source)):
        for name, vocabulary in VOCABULARIES.items():
            shared = sorted(set(words) & vocabulary)
            if len(shared) > AT_MOST:
                copies.append(f"line {line}: {name} {shared}")
    return copies


def _modules() -> list[Path]:
    return sorted(
        path
        for package in READ
        for path in (ROOT / package).rglob("*.py")
        if HOME not in path.parents and "migrations" not in path.parts
    )


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_module_keeps_its_own_copy_of_a_shopper_vocabulary(path):
    assert copies_in(path.read_text()) == [], "define these words in llm.shopper_words"


@pytest.mark.parametrize(
    "source",
    [
        'SIZES = ("XS", "S", "M", "L")',
        'PATTERN = r"\\b(?:XXS|XS|S|M|L|XL)\\b"',
        'TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}',
        'MONEY = r"\\d\\s*(?:eur|euros?|pounds?|quid|bucks)"',
        'FOR = {"wedding": "wedding", "hiking": "hiking", "beach": "beach", "gym": "gym"}',
    ],
)
def test_the_finder_finds_a_copy(source):
    assert copies_in(source)


def test_the_finder_lets_prose_and_two_words_pass():
    assert copies_in('HELP = "what they shop for (a wedding, hiking, the office)"') == []
    assert copies_in('SOME = ("small", "medium", "large")') == []
