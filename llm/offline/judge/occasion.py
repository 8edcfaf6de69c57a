"""Occasions the shopper is shopping for: a wedding, a hiking trip, the office."""

from __future__ import annotations

import re

from llm.fact_schema import occasion_sentence
from llm.offline.judge.clauses import Clause
from llm.offline.judge.judged import Judged
from llm.offline.judge.words import FIRST_PERSON, GARMENT
from llm.shopper_words import OCCASION_PHRASES, OCCASIONS

# "Run" is running only as a noun ("for a run", "go to a run"): "I run three times a week" is
# a habit, and "they run small" is a size.
_OCCASION_WORDS = OCCASIONS | {"run": "running"}
_OCCASION = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _OCCASION_WORDS), key=len, reverse=True)) + r")\b", re.I
)
_SEASONS = frozenset({"winter", "summer"})
_OCCASION_CUE = re.compile(
    r"\b(?:for|to|going|go|goes|off to|heading|have|got|attend|attending|upcoming|planning|"
    r"next|this|married|trip|invited|hosting|starting|start|my|our|training|off)\b",
    re.I,
)
_OCCASION_NEGATED = re.compile(
    r"\b(?:not|no longer|never|hate|don't|cancelled|canceled|skip|skipping)\b", re.I
)


def occasion_facts(clause: Clause, at: int) -> list[Judged]:
    text = clause.text
    # A request is shopping in itself ("I need hiking boots"); a statement needs a cue.
    cued = (clause.kind == "request" and FIRST_PERSON.search(text)) or _OCCASION_CUE.search(text)
    if clause.past or not cued or _OCCASION_NEGATED.search(text):
        return []
    facts = []
    for match in _OCCASION.finditer(text):
        key = _OCCASION_WORDS[match.group(1).lower()]
        garment_after = GARMENT.match(text, match.end() + 1)
        if garment_after and (key in _SEASONS or clause.kind == "statement"):
            # "winter coats", "I trust Kestrel for running shoes": a kind of garment; asking
            # for one ("I need hiking boots") is shopping for the occasion.
            continue
        if (
            key == "running"
            and match.group(1).lower() == "run"
            and not re.search(r"\b(?:a|for|go|to)\s+(?:\w+\s+)?run\b", text, re.I)
        ):
            continue
        facts.append(
            Judged(
                position=at + match.start(),
                fact=occasion_sentence(OCCASION_PHRASES[key]),
                category="occasion",
                slot=f"occasion/{key}",
                value=key,
            )
        )
    return facts
