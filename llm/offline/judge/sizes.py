"""Sizes: letter, garment and shoe sizes, waist and inseam, and changes of size."""

from __future__ import annotations

import re
from dataclasses import dataclass

from llm.fact_schema import relative_size_sentence, size_sentence
from llm.offline.judge.clauses import BARE_SIZE, Clause
from llm.offline.judge.judged import Judged
from llm.offline.judge.measures import (
    INSEAM_SAID,
    WAIST_BY_INSEAM,
    WAIST_SAID,
    waist_inseam_facts,
)
from llm.offline.judge.words import GARMENT, GARMENT_NOUNS, GARMENT_WORDS
from llm.shopper_words import (
    CURRENCY_WORD_ALTERNATIVES,
    FOOTWEAR_WORDS,
    LETTER_SIZE_ALTERNATIVES,
    LETTER_SIZE_WORDS,
    LETTER_SIZES,
    size_in_shop_system,
)

WOMENS = re.compile(r"\b(?:wom[ae]n'?s|womens|ladies'?)\b", re.I)

_LETTER = rf"(?:3XL|2XL|{LETTER_SIZE_ALTERNATIVES})"
_SIZE_MENTION = re.compile(
    rf"(?<![\w'&])(?P<letter>{_LETTER}|{LETTER_SIZE_ALTERNATIVES.lower()})(?![\w'&])"
    r"|\b(?P<word>(?i:extra small|x-small|extra large|x-large|xx-large|small|medium|large))\b"
    r"|(?P<number>\b(?i:(?:eu|uk|us)\s*)?\d{1,2}(?:[.,]5)?(?![\d%])(?i:\s*(?:eu|uk|us)\b)?)",
)
# What makes a size the shopper's own, said before it.
_SIZE_CUE = re.compile(
    rf"^(?:an?\s+)?(?:{LETTER_SIZE_ALTERNATIVES}|\d{{2}})\s+or\s+(?:an?\s+)?(?:{LETTER_SIZE_ALTERNATIVES}|\d{{2}})$|"
    r"\b(?:i'm|im|i am|i\s+(?:usually\s+|normally\s+|always\s+|generally\s+|typically\s+|"
    r"mostly\s+|often\s+|tend to\s+)?(?:wear|take|get|buy|order|go for|fit)|i'm usually|i'm normally|i'm generally|i'm typically|i'm always|"
    r"i'm now|i'm more of|now|size|sizes|wear|take|fits me|fit me|gone up to|went up to|"
    r"mostly|mainly|most of the time|mine\s+is|mine's|"
    r"gone down to|went down to|moved up to|moved down to|my feet are|feet are|waist|inseam|"
    r"leg|length|i've been|been|usually|normally|generally|typically|gone from|went from|"
    r"dropped to|dropped down to|down to|switched to|moved to|shrunk to)\b|"
    r"\b(?:is|are)\s+(?:always\s+|usually\s+|normally\s+)?(?:an?|size)\s+(?=\w)|"
    r"\b(?:(?:for|in)\s+)?(?:everything|anything|all)\s+(?:else|other\s+\w+)\b|"
    # "L for coats, M for the rest", "XL in jackets, M otherwise": the rest of the wardrobe.
    r"\b(?:for|in)\s+the\s+rest\b|\b(?:otherwise|elsewhere)\W*$|"
    rf"^(?:(?:and|also|plus)\s+)?(?:an?\s+)?(?:(?:uk|us|eu)\s*)?(?:\d{{1,2}}(?:\.5)?|{LETTER_SIZE_ALTERNATIVES}|"
    r"small|medium|large)\s+" + GARMENT_NOUNS + r"$|"
    r"\b" + GARMENT_NOUNS + r"\s+(?:are|is)\s+(?:always\s+|usually\s+|normally\s+)?"
    r"(?:an?\s+|size\s+)?(?=\d|[SMLX]|(?:uk|us|eu)\s*\d)|"
    r"^"
    + GARMENT_NOUNS
    + r"\s*(?::|in)?\s*(?:always\s+|usually\s+|normally\s+)?(?:an?\s+|size\s+)?(?:\d|[SMLX])|"
    r"\b(?:in|for)\s+(?:my\s+)?" + GARMENT_NOUNS + r"\b",
    re.I,
)
_NEGATED_SIZE = re.compile(
    r"\b(?:not|no longer|never|isn't|aren't|instead of|rather than|from)\s+(?:really\s+)?"
    r"(?:(?:a|an|in)\s+)?(?:size\s+)?(?:(?:uk|us|eu)\s*)?(?:"
    + _LETTER
    + r"|\d{1,2}|small|medium|large)\b"
    r"(?:\s+any\s?more)?",
    re.I,
)
_PRICE_BEFORE = re.compile(
    r"(?:than|under|over|below|above|(?<!went )(?<!gone )(?<!moved )up to|max|about|around|spend|"
    r"spending|pay|budget|€)$"
)
_NUMBER_VALUE = re.compile(r"^(?:(eu|uk|us)\s*)?(\d{1,2})(?:[.,](5))?(?:\s*(eu|uk|us))?$", re.I)
_SIZE_SYSTEM = re.compile(r"(?i:\b(uk|us|eu)\s+siz(?:es|ing)\b)|\b(UK|US|EU)\b")
# The shopper vocabulary's footwear words, and "EU", the system the shop sizes shoes in.
SHOE_CONTEXT = re.compile(rf"\b(?:{FOOTWEAR_WORDS}|eu)\b", re.I)
_ARTICLE_NUMBER = re.compile(
    r"\b(?:i'm|im|i am|i take|i wear|i usually take|i usually wear)\s+"
    r"(?:(?:really|actually|usually|normally|definitely|generally|always|now)\s+)?"
    r"(?:(?:a|an)\s+(?:size\s+)?|size\s+)(\d{1,2})\b",
    re.I,
)
_NOT_A_SIZE = re.compile(
    rf"^\s*(?:[€£$]|(?:years?|yo|y/o|kg|kilos?|cm|lbs?|{CURRENCY_WORD_ALTERNATIVES}|%|minutes|km|times)\b)",
    re.I,
)
_RELATIVE = re.compile(
    r"\b(?:went|gone|going|go|moved|move|have gone|'ve gone)\s+(?P<way>up|down)\s+"
    r"(?P<count>a|one|two|1|2)\s+(?:(?P<kind>shoe|dress|jeans|trouser|jacket|coat)\s+)?sizes?\b"
    r"|\b(?:i'm|i am|im)\s+(?:now\s+)?(?P<count2>a|one|two)\s+"
    r"(?:(?P<kind2>shoe|dress|jeans|trouser|jacket|coat)\s+)?sizes?\s+"
    r"(?P<way2>bigger|larger|up|smaller|down)\b",
    re.I,
)


# How sure the shopper is of one size among several: "usually an M" is the size, "sometimes
# an L" an exception; "now", "these days" correct what came before.
_PREFERRED = re.compile(
    r"\b(?:usually|mostly|normally|generally|typically|mainly|most of the time|more often|"
    r"tend to|nearly always|almost always|in most|now|nowadays|these days|currently|actually|"
    r"i mean)\b[^,;]{0,20}$",
    re.I,
)
_EXCEPTION = re.compile(
    r"\b(?:sometimes|occasionally|at times|now and then|once in a while|rarely|can be|"
    r"or even|even|sometimes even|between|in some brands|depending)\b[^,;]{0,25}$|"
    r"^\s*(?:\S+\s+){0,3}?(?:in some brands|depending on|sometimes|occasionally|if it runs)\b",
    re.I,
)


@dataclass(frozen=True)
class SizeCandidate:
    """One size said in a sentence, before the sentence's sizes are settled together."""

    fact: Judged
    weight: int  # +1 the usual or corrected size, -1 an exception or one end of a range
    clause: int


def size_facts(
    clause: Clause,
    at: int,
    *,
    listed: bool,
    carried: str | None = None,
    shoes: bool = False,
    womens: bool = False,
) -> list[SizeCandidate]:
    """Sizes of one clause, each for the garment named next to it ("a 38 in shoes and a small
    in tops"). `carried` is the garment an earlier clause gave sizes for ("a 42 or 43 in
    shoes, mostly 43"); `shoes`, that the sentence is about footwear; `womens`, that it says
    the sizes are women's ("US 7 in heels, women's")."""
    text = clause.text
    if not (_SIZE_CUE.search(text) or listed or _RELATIVE.search(text) or BARE_SIZE.match(text)):
        return []
    cleaned = _NEGATED_SIZE.sub(_blank, text)
    measured = waist_inseam_facts(cleaned, at)
    found = [SizeCandidate(fact, 0, clause.start) for fact in measured]
    for pattern in (WAIST_BY_INSEAM, WAIST_SAID, INSEAM_SAID):
        cleaned = pattern.sub(_blank, cleaned) if measured else cleaned
    garments = list(GARMENT.finditer(cleaned))
    mentions = list(_SIZE_MENTION.finditer(cleaned))
    floor = 0
    for number, match in enumerate(mentions):
        limit = mentions[number + 1].start() if number + 1 < len(mentions) else len(cleaned)
        garment, floor = _garment_near(garments, match, floor=floor, limit=limit)
        named = garment is not None
        garment = garment or carried
        slot = GARMENT_WORDS[garment] if garment else "size/tops"
        sized = _size_value(
            match, cleaned, slot=slot, garment=garment is not None, shoes=shoes and not named
        )
        if sized is None:
            continue
        kind, said = sized
        slot = "size/shoes" if kind == "shoe" else slot
        value = said
        if (
            kind == "garment"
            and slot == "size/bottoms"
            and re.fullmatch(r"2[4-9]|3\d|4[0-4]", said)
        ):
            slot, value = "size/waist", said  # "a 36 in jeans": the waist, in inches
        elif kind != "letter":
            # In the shop's system: EU numbers for shoes, letters for clothes.
            women = womens or bool(WOMENS.search(text))
            value = size_in_shop_system(said, shoes=kind == "shoe", womens=women or None)
            if value is None:
                continue
        # The shopper's own garment word, except where the slot says it already.
        shown = None
        if garment and slot != "size/shoes" and garment not in ("tops", "top"):
            shown = _plural(garment)
        before = cleaned[: match.start()]
        weight = 1 if _PREFERRED.search(before) else -1 if _EXCEPTION.search(before) else 0
        if re.match(r"\s*(?:or so|ish|at a push|sometimes|occasionally)\b", cleaned[match.end() :]):
            weight = -1
        if slot == "size/waist":
            shown = None
        sentence = size_sentence(slot, value, shown, said=said if said != value else None)
        fact = Judged(at + match.start(), sentence, "size", slot, value)
        found.append(SizeCandidate(fact, weight, clause.start))
    if not any(c.fact.slot not in ("size/waist", "size/inseam") for c in found):
        clause_garment = garments[0].group(1).lower() if garments else carried
        slot = GARMENT_WORDS[clause_garment] if clause_garment else "size/tops"
        relative = _relative_fact(cleaned, at, slot=slot)
        found += [SizeCandidate(relative, 0, clause.start)] if relative else []
    return found


# A size the shopper calls their own in the middle of asking for something: "boots in my
# size, a 39", "trousers in a 34 waist, that's my size".
_MY_SIZE = re.compile(
    r"\bmy\s+(?:usual\s+|normal\s+|shoe\s+)?size(?:\s*[,:(-]|\s+is|\s+which is)?\s+"
    r"(?:a\s+|an\s+)?(?P<after>[^\s,.?!)]+(?:\s+waist)?)"
    r"|(?:a\s+|an\s+)?(?P<before>[^\s,.?!]+(?:\s+waist)?)\s*,?\s*(?:that's|that is|which is|is)\s+"
    r"my\s+(?:usual\s+|normal\s+)?size\b",
    re.I,
)


def asked_size_facts(clause: Clause, at: int, *, shoes: bool) -> list[SizeCandidate]:
    """Sizes that are the shopper's own inside a request or a question: a waist or inseam
    measurement ("jeans for my 32 waist"), or a size called "my size"."""
    text = _NEGATED_SIZE.sub(_blank, clause.text)
    found = [SizeCandidate(fact, 0, clause.start) for fact in waist_inseam_facts(text, at)]
    if found:
        return found
    match = _MY_SIZE.search(text)
    if not match:
        return []
    said = match.group("after") or match.group("before")
    garment = garment_named(text[: match.start()])  # "boots in my size", not a later ask
    stated = f"I wear size {said}" + (f" in {garment}" if garment else "")
    own = Clause(stated, clause.start, "statement", True, False, False, False, False)
    return [
        SizeCandidate(
            Judged(at + match.start(), c.fact.fact, c.fact.category, c.fact.slot, c.fact.value),
            c.weight,
            c.clause,
        )
        for c in size_facts(own, 0, listed=False, shoes=shoes)
    ]


# A size corrected in the next breath: "a 32 waist, well 33 now", "an M, or rather an L".
_CORRECTION = re.compile(
    r"^(?:well|or\s+rather|rather|i\s+mean|actually|sorry|no|or|make\s+(?:that|it))\b[\s,]*"
    rf"(?:an?\s+|size\s+)?(?P<said>\d{{1,2}}(?:\.5)?|{LETTER_SIZE_ALTERNATIVES})"
    r"(?:\s+(?:now|actually|really|these\s+days|nowadays))?[\s.!]*$",
    re.I,
)


def corrected_size(text: str, at: int, previous: SizeCandidate) -> SizeCandidate | None:
    """The size a correction gives, in the slot of the size it corrects, marked as the one
    to keep; None when the clause corrects no size."""
    match = _CORRECTION.match(text)
    if not match:
        return None
    said, slot = match.group("said"), previous.fact.slot
    if slot in ("size/waist", "size/inseam"):
        value = said if said.isdigit() and 22 <= int(said) <= 50 else None
    elif said.upper() in LETTER_SIZES:
        value = None if slot == "size/shoes" else said.upper()
    else:
        value = size_in_shop_system(said, shoes=slot == "size/shoes")
    if value is None:
        return None
    fact = Judged(at + match.start("said"), size_sentence(slot, value), "size", slot, value)
    return SizeCandidate(fact, 1, previous.clause)


def garment_named(text: str) -> str | None:
    """The last garment a clause names, for the sizes of the clauses after it."""
    named = list(GARMENT.finditer(text))
    return named[-1].group(1).lower() if named else None


def sizes_settle(candidates: list[SizeCandidate]) -> list[Judged]:
    """The sizes a sentence states, one per slot: one slot holds one size.

    Several values for one slot: a stated change of size gives way to the size itself, an
    exception ("sometimes an L") to the rule, and of what remains the one marked usual
    ("usually an M") or corrected ("an L now") is kept. Values nothing tells apart ("M or
    L", "a 42 in running shoes and a 43 in boots") keep none."""
    by_slot: dict[str, list[SizeCandidate]] = {}
    for candidate in candidates:
        by_slot.setdefault(candidate.fact.slot, []).append(candidate)
    settled = []
    for found in by_slot.values():
        absolute = [c for c in found if c.fact.value[:1] not in "+-"]
        found = absolute or found
        found = [c for c in found if c.weight >= 0] or found
        values = {c.fact.value for c in found}
        if len(values) == 1:
            settled.append(found[0].fact)
            continue
        preferred = {c.fact.value for c in found if c.weight > 0}
        if len(preferred) == 1:
            settled.append(next(c.fact for c in reversed(found) if c.weight > 0))
    return settled


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def _garment_near(
    garments: list[re.Match], mention: re.Match, *, floor: int, limit: int
) -> tuple[str | None, int]:
    """The garment a size is given for: the first named after it (before the next size and
    close by), else the last named before it and after the garment of the size before
    ("for dresses I'm a small"). Returns it and where the next size may look back to."""
    after = [g for g in garments if mention.end() <= g.start() < min(limit, mention.end() + 40)]
    if after:
        return after[0].group(1).lower(), after[0].end()
    before = [g for g in garments if floor <= g.start() < mention.start()]
    return (before[-1].group(1).lower() if before else None), mention.end()


# Sizes the shop has, not the shopper's: "the only sizes left are XXS", "it comes in 38".
_STOCK_BEFORE = re.compile(
    r"\b(?:left|in\s+stock|available|remaining|comes?\s+in|only\s+(?:have|had|has)|sold\s+out\s+in)"
    r"(?:\s+(?:are|is|in|was|were))?\s*(?:only\s+)?(?:an?\s+|size\s+)?$",
    re.I,
)


def _size_value(
    match: re.Match, text: str, *, slot: str, garment: bool, shoes: bool = False
) -> tuple[str, str] | None:
    """("letter" | "shoe" | "garment", value) for one size mention, or None."""
    if _STOCK_BEFORE.search(text[: match.start()]):
        return None
    if text[: match.start()].rstrip().lower().endswith(("the", "that", "this")):
        return None  # "returning the L": a product's size, not the shopper's
    before = text[: match.start()].rstrip().lower()
    if match.group("letter"):
        letter = match.group("letter")
        # Lowercase "m", "s", "l" are words, not sizes, unless "size" says otherwise.
        if letter in ("s", "m", "l") and not before.endswith("size"):
            return None
        if slot == "size/shoes":
            return None
        return "letter", letter.upper().replace("2XL", "XXL").replace("3XL", "XXXL")
    if re.match(
        rf"\s*[-/]\s*(?:{LETTER_SIZE_ALTERNATIVES}|small|medium|large)\b", text[match.end() :], re.I
    ):
        return None  # "medium-large", "M/L": between sizes
    if match.group("word"):
        before = text[max(0, match.start() - 12) : match.start()].lower()
        after = text[match.end() :].lower()
        if not (
            re.search(r"\b(?:a|an|size|wear|take|in|usually|normally|get)\s+$", before)
            or re.match(
                r"\s+(?:fits|suits|works|is my size|in|for|usually|mostly|normally|generally|"
                + GARMENT_NOUNS
                + r")\b",
                after,
            )
        ):
            return None  # "I'm small" is a build, "I'm a small" a size
        if slot == "size/shoes":
            return None
        return "letter", LETTER_SIZE_WORDS[match.group("word").lower()]
    number = _NUMBER_VALUE.match(match.group("number").strip())
    if not number or _NOT_A_SIZE.match(text[match.end() :]) or _PRICE_BEFORE.search(before):
        return None
    if text[: match.start()].rstrip().lower().endswith(("the", "that", "this")):
        return None  # "returning the 42": a product's size
    system = number.group(1) or number.group(4)
    if not system and (named := _SIZE_SYSTEM.search(text)):
        system = named.group(1) or named.group(2)
    whole, half = int(number.group(2)), number.group(3)
    shown = f"{whole}.5" if half else str(whole)
    if system and system.lower() in ("uk", "us"):
        shown = f"{system.upper()} {shown}"
    # A size for a garment that is no shoe is no shoe size, whatever else the text says.
    clothes = garment and slot != "size/shoes"
    shoe = slot == "size/shoes" or (not clothes and (shoes or SHOE_CONTEXT.search(text)))
    if shoe and (system or 34 <= whole <= 49):
        return "shoe", shown
    if half and not clothes and 34 <= whole <= 49:
        return "shoe", shown  # clothes come in no half sizes: "make it a 38.5"
    if slot == "size/shoes" and garment and 2 <= whole <= 15:
        return "shoe", shown  # "a size 9 in shoes": a UK or US shoe size, as said
    if garment and slot != "size/shoes" and (system or 2 <= whole <= 58):
        return "garment", shown
    if not garment and system and system.lower() in ("uk", "us") and 2 <= whole <= 30:
        return "garment", shown  # "a size 14 UK": a clothing size
    if (
        not garment
        and not shoe
        and not GARMENT.search(text)
        and _ARTICLE_NUMBER.search(text)
        and not half
        and whole <= 20
    ):
        # "I'm a 12": with no garment and no shoe named, a UK clothing size.
        return "garment", shown
    if not garment and _ARTICLE_NUMBER.search(text) and 35 <= whole <= 48 and not half:
        # "I'm a 42": with no garment named, a number in shoe range is a shoe size.
        return "shoe", shown
    return None


def _relative_fact(text: str, at: int, *, slot: str) -> Judged | None:
    match = _RELATIVE.search(text)
    if not match:
        return None
    way = (match.group("way") or match.group("way2")).lower()
    count = (match.group("count") or match.group("count2")).lower()
    steps = 2 if count in ("two", "2") else 1
    sign = "+" if way in ("up", "bigger", "larger") else "-"
    kind = match.group("kind") or match.group("kind2")
    slot = _RELATIVE_KINDS.get((kind or "").lower(), slot)
    change = f"{sign}{steps}"
    fact = relative_size_sentence(slot, change)
    return Judged(position=at + match.start(), fact=fact, category="size", slot=slot, value=change)


_RELATIVE_KINDS = {
    "shoe": "size/shoes", "dress": "size/dresses", "jeans": "size/bottoms",
    "trouser": "size/bottoms", "jacket": "size/outerwear", "coat": "size/outerwear",
}  # fmt: skip


def _plural(word: str) -> str:
    if word.endswith("s") or word in ("knitwear", "outerwear", "footwear", "denim"):
        return word
    return word + "es" if word.endswith(("sh", "ch")) else word + "s"
