"""Waist and inseam: the two measures a shopper gives in inches (or centimetres), which
name themselves ("32 waist", "W32 L30", "an inside leg of 81cm") and so need no "I"."""

from __future__ import annotations

import re

from llm.fact_schema import size_sentence
from llm.offline.judge.judged import Judged
from llm.shopper_words import centimetres_to_inches

WAIST_SAID = re.compile(
    r"\b(?P<a>\d{2})\s*(?:\"|''|in(?:ch(?:es)?)?\b)?\s*(?:(?:in|round|around|at)\s+the\s+)?waist\b"
    r"|\bwaist(?:\s+size|\s+measurement)?(?:\s+is|\s+of|:)?\s+(?:a\s+|an\s+)?"
    r"(?:(?:about|around|roughly|approximately|approx\.?)\s+)?(?P<b>\d{2,3})(?:\b|(?=cm))"
    r"|(?<![\w])w\s?(?P<c>\d{2})\b"
    # "an 81 cm waist", "86 cm round the waist": the unit between the figure and the noun.
    r"|\b(?P<d>\d{2,3})\s*(?:cm|centimet(?:re|er)s?)\s+(?:(?:in|round|around|at)\s+(?:the|my)\s+)?waist\b",
    re.I,
)
INSEAM_SAID = re.compile(
    r"\b(?P<a>\d{2})\s*(?:\"|''|in(?:ch(?:es)?)?\b)?\s*(?:inseam|inside leg|leg length|leg|length)\b"
    r"|\b(?:inseam|inside leg|leg length|leg)(?:\s+is|\s+of|:)?\s+(?:a\s+)?(?P<b>\d{2,3})(?:\b|(?=cm))"
    r"|(?<![\w])l\s?(?P<c>\d{2})\b"
    r"|\b(?P<d>\d{2,3})\s*(?:cm|centimet(?:re|er)s?)\s+(?:inseam|inside leg|leg length|leg)\b",
    re.I,
)
MEASURE_FIRST = re.compile(
    r"^\s*(?:w\s?\d{2}|\d{2}\s*(?:\"|''|in(?:ch(?:es)?)?)?\s*(?:waist|inseam|leg)|waist|inseam)\b",
    re.I,
)
WAIST_BY_INSEAM = re.compile(r"\b(?P<w>\d{2})\s*(?:/|x|\u00d7|by)\s*(?P<l>\d{2})\b", re.I)
_PAIR_CUE = re.compile(r"\b(?:i'm|i am|i wear|i take|size)\s+(?:an?\s+)?$", re.I)
_BOTTOMS = re.compile(r"\b(?:jeans|trousers|pants|chinos|waist|inseam|leg)\b", re.I)


def waist_inseam_facts(text: str, at: int) -> list[Judged]:
    facts = []
    pair = WAIST_BY_INSEAM.search(text)
    if pair and (_BOTTOMS.search(text) or _PAIR_CUE.search(text[: pair.start()])):
        waist, inseam = int(pair.group("w")), int(pair.group("l"))
        if 22 <= waist <= 50 and 26 <= inseam <= 38:
            position = at + pair.start()
            return [
                _measure("size/waist", str(waist), position),
                _measure("size/inseam", str(inseam), position + 1),
            ]
    waist_match = WAIST_SAID.search(text)
    inseam_match = INSEAM_SAID.search(text)
    if waist_match:
        value = next(g for g in waist_match.group("a", "b", "c", "d") if g)
        if waist_match.group("d"):
            value = str(centimetres_to_inches(float(value)))
        elif re.match(r"\s*(?:cm|centimet(?:re|er)s?)\b", text[waist_match.end() :], re.I):
            value = str(centimetres_to_inches(float(value)))  # "a waist of 86 cm": 34 inches
        if 22 <= int(value) <= 50 and (waist_match.group("c") is None or inseam_match):
            facts.append(_measure("size/waist", value, at + waist_match.start()))
    if inseam_match:
        value = next(g for g in inseam_match.group("a", "b", "c", "d") if g)
        if inseam_match.group("d"):
            value = str(centimetres_to_inches(float(value)))
        elif re.match(r"\s*(?:cm|centimet(?:re|er)s?)\b", text[inseam_match.end() :], re.I):
            value = str(centimetres_to_inches(float(value)))  # "an inside leg of 81cm": 32
        if 26 <= int(value) <= 38 and (inseam_match.group("c") is None or waist_match):
            facts.append(_measure("size/inseam", value, at + inseam_match.start()))
    return facts


def _measure(slot: str, value: str, position: int) -> Judged:
    return Judged(position, size_sentence(slot, value), "size", slot, value)
