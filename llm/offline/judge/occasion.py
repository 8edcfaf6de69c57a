"""Occasions the shopper is shopping for: a wedding, a hiking trip, the office."""

from __future__ import annotations

import re

from llm.fact_schema import OCCASION_PHRASES, occasion_sentence
from llm.offline.judge.clauses import Clause
from llm.offline.judge.judged import Judged
from llm.offline.judge.words import FIRST_PERSON, GARMENT

_OCCASION_WORDS: dict[str, str] = {
    "wedding": "wedding", "weddings": "wedding", "getting married": "wedding",
    "get married": "wedding", "job interview": "interview", "interview": "interview",
    "interviews": "interview", "hiking": "hiking", "hike": "hiking", "hikes": "hiking",
    "trekking": "hiking", "running": "running", "jogging": "running", "run": "running",
    "half marathon": "marathon", "marathon": "marathon", "beach": "beach", "party": "party",
    "parties": "party", "birthday party": "party", "travel": "travel", "travelling": "travel",
    "traveling": "travel", "trip": "travel", "holiday": "holiday", "holidays": "holiday",
    "vacation": "holiday", "festival": "festival", "festivals": "festival", "funeral": "funeral",
    "office": "office", "for work": "work", "at work": "work", "to work": "work",
    "camping trip": "camping", "hiking trip": "hiking", "beach trip": "beach",
    "skiing trip": "ski", "road trip": "travel", "work clothes": "work", "workwear": "work", "work wear": "work", "work outfits": "work",
    "new job": "work", "ski trip": "ski", "skiing": "ski", "ski": "ski",
    "camping": "camping", "date night": "date", "a date": "date", "first date": "date",
    "gym": "gym", "formal event": "formal", "formal occasion": "formal", "black tie": "formal",
    "black-tie": "formal", "business trip": "business", "business meeting": "business",
    "cycling": "cycling", "bike rides": "cycling", "yoga": "yoga", "for winter": "winter",
    "this winter": "winter", "the winter": "winter", "for summer": "summer",
    "this summer": "summer", "the summer": "summer", "christmas": "christmas",
    "graduation": "graduation", "christening": "christening", "baptism": "christening",
    "prom": "prom", "dinner": "dinner", "gala": "gala",
}  # fmt: skip
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
            continue  # "I run three times a week" is a habit, not an occasion
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
