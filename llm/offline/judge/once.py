"""What holds once, for one brand, or was never meant: the parts of a message that state no
standing fact however they are worded.

- `once` and `once_span` mark a sentence, or the part of it between its hard breaks, whose
  figures are for one purchase ("just this once", "for this jacket only", "but not
  usually", "but this time"): "I never spend more than 50, but this time I'll go to 120"
  keeps the 50.
- `ironic` marks a sentence said in irony ("yeah right", "said no one ever", a mocking
  "sure, I'd love to ...", praise of a thing for what is unpleasant about it): it means the
  opposite of its words.
- `one_brands_sizing` and `relative_for_one_brand` find sizes said for one brand only
  ("Kestrel runs small", "in Vela I take a 41", "I go up a size in Vela").
"""

from __future__ import annotations

import re

from llm.offline.judge.words import GARMENT_NOUNS

_ONCE = re.compile(
    r"\b(?:just|only)\s+(?:this|the\s+once|for\s+once)\b(?:\s+(?:once|time|one))?|\bfor\s+once\b"
    r"|\bthis\s+once\b|\bone[-\s]off\b|\bas\s+a\s+(?:treat|one[-\s]off|gift|present)\b"
    # "This time" is one purchase only against the usual: "I never spend over 50, but this time".
    r"|\b(?:but|though|although|except)\s+(?:just\s+)?this\s+(?:one\s+)?time\b"
    r"|\btreat(?:ing)?\s+myself\b|\bthis\s+is\s+a\s+(?:gift|present)\b"
    r"|\b(?:but|though|although)\s+not\s+(?:usually|normally|generally|always|as\s+a\s+rule)\b"
    r"|\bthan\s+(?:usual|normal|i\s+usually\s+do)\b"
    r"|\bjust\s+for\s+(?:the|this|that)\s+(?!time\b)\w+|\bfor\s+(?:my|the|a|our)\s+\w+\s+only\b|\bonly\s+for\s+(?:my|the|this|that|our)\s+\w+\b"
    r"|\b(?:for|on)\s+(?:this|these|that|those)\s+(?!time\b|month\b|year\b|week\b|season\b)\w+"
    r"(?:\s+only)?\b",
    re.I,
)
_IRONY = re.compile(
    r"\bsaid\s+no\s+one\s+ever\b|\byeah,?\s+(?:right|sure|because)\b|\blike\s+i'd\s+ever\b"
    r"|\bnothing\s+says\b|\bwho\s+doesn't\s+(?:want|love|like)\b|\bjust\s+what\s+i\s+(?:always\s+)?"
    r"(?:wanted|needed)\b|\b(?:oh|wow),?\s+(?:great|brilliant|wonderful|fantastic|joy|lovely|"
    r"perfect|super)\b|\b(?:love|adore)\s+(?:how|it\s+when)\b|\bbecause\s+i\s+(?:just\s+)?"
    r"(?:love|adore)\b|(?:^|\bi\s+)(?:just\s+|\w+ly\s+)?(?:love|adore|enjoy)\s+(?:paying|spending|wasting|"
    r"shelling|forking)\b"
    r"|\b(?:a\s+fortune|an\s+arm\s+and\s+a\s+leg)\b.*\b(?:love|adore|fun)\b|\bsarcasm\b|/s\b"
    # Taken back at the end: "totally my style, haha no", "a perfect fit, not!", "jk".
    r"|\b(?:ha(?:ha)+|lol|lmao)\W+(?:no|not|jk|kidding)\W*$|\bjust\s+kidding\b|\bjk\b|,\s*not\s*!+\s*$",
    re.I,
)


# Where the shopper lives or moves to: a town after "live in", "relocating to", "we're moving
# to", "moving from ... to ..." is a place, never a brand. A move said in the past or with
# "over" ("I moved over from Zara to Uniqlo") is as often a switch of brand, so it stays one.
_RESIDENCE = re.compile(
    r"\b(?:relocat\w*|(?:live|living|lives|based|settled)\s+in|move\s+(?:house|home|abroad))\b"
    # A move with a date ahead or a "there" after it is a move of house: "we're moving to
    # Bristol next month", "moving from Berlin to Oslo, it's much colder there".
    r"|\bmov(?:e|ed|ing)\b(?!\s+(?:over|on|away)\b)(?=.*\b(?:(?:next|this)\s+(?:week|month|year|"
    r"spring|summer|autumn|winter)|soon|there|here|for\s+work)\b)",
    re.I,
)
_PLACE = re.compile(r"\b(?:from|to|in|not)\s+(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")


def places_named(text: str) -> set[str]:
    """The names a sentence gives as places the shopper lives in or moves between, lowercased."""
    residence = _RESIDENCE.search(text)
    if not residence:
        return set()
    # The move's own words only: "I live in Leeds, and I'm loyal to Vela" keeps Vela.
    span = re.split(r"[;.!?]|\b(?:and|but|so|because)\b", text[residence.start() :], maxsplit=1)[0]
    return {match.group("name").lower() for match in _PLACE.finditer(span)}


def once(text: str) -> bool:
    """True when the sentence says its figures are for one purchase or this once."""
    return bool(_ONCE.search(text))


_HARD_BREAK = re.compile(r"[;]|\b(?:but|though|although|however|whereas|while)\b", re.I)


def once_span(text: str) -> tuple[int, int] | None:
    """Where the sentence speaks of one purchase: the part between the hard breaks ("but",
    "though") around its sign of a one-off, or None when it has none. "I never spend more
    than 50, but this time I'll go to 120": from "but" on."""
    match = _ONCE.search(text)
    if not match:
        return None
    breaks = [b.start() for b in _HARD_BREAK.finditer(text)]
    start = max((b for b in breaks if b <= match.start()), default=0)
    end = min((b for b in breaks if b > match.end()), default=len(text))
    return start, end


# Irony by structure: praise of a thing for what is unpleasant about it ("I adore scratchy
# wool", "love paying a fortune for socks", "I enjoy jeans that fall apart"). Nobody likes
# a thing for its itch or its price, so the praise is the opposite of what is meant.
_PRAISE = re.compile(
    r"\b(?:i\s+)?(?:just\s+|really\s+|totally\s+|absolutely\s+|so\s+)?(?:love|adore|enjoy|"
    r"live\s+for|can't\s+get\s+enough\s+of|nothing\s+beats|nothing\s+better\s+than)\b",
    re.I,
)
_UNPLEASANT = re.compile(
    r"\b(?:scratchy|itchy|itching|sweaty|clammy|sticky|prickly|uncomfortable|overpriced|"
    r"rip-?offs?|a\s+fortune|an\s+arm\s+and\s+a\s+leg|through\s+the\s+nose|more\s+than\s+my\s+rent|"
    r"shrinks?|shrinking|falls?\s+apart|falling\s+apart|see-through|blisters?|pinch(?:es|ing)?|"
    r"pilling|bobbling|fades?\s+after|rashes?|hives|sweating|soaked)\b",
    re.I,
)
# What breaks the praise off from what follows: a new clause, or the quality denied.
_BREAK = re.compile(
    r"[,;.!?]|\b(?:but|because|since|as|when|though|unless|that\s+(?:doesn't|don't|isn't|won't)|"
    r"doesn't|don't|isn't|aren't|won't|never|not|no|without|non)\b",
    re.I,
)


# An assent said with a roll of the eyes before praise: "Sure, I'd love to pay 200 for a tee".
_MOCK_ASSENT = re.compile(
    r"^\W*(?:oh\s+)?(?:sure|yeah|yes|right|of\s+course|totally)\b[\s,!.]+(?:i'd\s+|i\s+would\s+|i\s+)?"
    r"(?:just\s+|really\s+|totally\s+|absolutely\s+)?(?:love|adore|enjoy)\b",
    re.I,
)


def ironic(text: str) -> bool:
    """True when the sentence is said in irony: it means the opposite of its words."""
    if _IRONY.search(text) or _MOCK_ASSENT.search(text):
        return True
    for praise in _PRAISE.finditer(text):
        unpleasant = _UNPLEASANT.search(text, praise.end())
        if unpleasant and not _BREAK.search(text, praise.end(), unpleasant.start()):
            return True
    return False


# One brand's sizing is no size of the shopper's: "Kestrel runs small so I take a 43 in
# theirs", "I go up a size in Vela".
_ONE_BRANDS_SIZE = re.compile(
    r"\b(?:runs?|running|(?:comes?|came|coming)(?:\s+up)?|fits?|sizes?)\s+(?:a\s+bit\s+|quite\s+|really\s+|very\s+)?"
    r"(?:small|large|big|tight|narrow|generous|short|long)\b|\bin\s+(?:theirs|their\s+\w+)\b"
    r"|\b(?:in|with|for)\s+(?:that|this)\s+brand\b",
    re.I,
)
# "In Kestrel I take a 42", "for Vela I'm an L": a size said for one named brand.
_IN_ONE_BRAND = re.compile(
    r"\b(?i:in|with|for)\s+(?![Ii]\b)(?!(?i:shoes|trainers|boots|tops|jeans|dresses|coats)\b)[A-Z]"
    r"[\w&']*(?:\s+[A-Z][\w&']*)?(?:\s+" + GARMENT_NOUNS + r")?,?\s+"
    r"(?i:i\s+(?:take|wear|need|get|go\s+for|buy|size\s+(?:up|down))|i'm|i\s+am)\b"
)
_RELATIVE_FOR_BRAND = re.compile(
    r"\b(?:up|down)\s+(?:a|one|two|half\s+a)\s+sizes?\s+(?:in|for|with)\s+(?![Ii]\b)[A-Z][\w&']*"
    r"|\b(?:in|for|with)\s+(?![Ii]\b)[A-Z][\w&']*,?\s+[Ii]\s+(?:size|go)\s+(?:up|down)\b"
)
# "Mistral comes up big, I go down a size there": a step said of the brand just named.
_STEP_THERE = re.compile(
    r"\b(?:up|down)\s+(?:a|one|half\s+a)\s+size\s+(?:there|in\s+theirs|in\s+them|with\s+them)\b",
    re.I,
)


def one_brands_sizing(text: str) -> int | None:
    """Where a sentence starts giving one brand's sizes, not the shopper's own; None when
    it gives none ("I'm a 40, but Vela runs small so 41 there": from "runs small")."""
    starts = [m.start() for m in (_ONE_BRANDS_SIZE.search(text), _IN_ONE_BRAND.search(text)) if m]
    return min(starts) if starts else None


def relative_for_one_brand(text: str) -> bool:
    """True when a size up or down is said for one brand only."""
    return bool(
        _RELATIVE_FOR_BRAND.search(text)
        or (_STEP_THERE.search(text) and _ONE_BRANDS_SIZE.search(text))
    )
