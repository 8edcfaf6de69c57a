"""What a sentence claims, read in the forms a shopper would read as a claim.

The patterns of the grounding check: money (in every currency sign and word, figures in
digits or words, from the one shopper vocabulary, `llm.shopper_words`), stock counts,
availability, lists of sizes and colours, product names and shop policy (offers are
`llm.claims.offer_stated`, the list the memory screen reads too). Each
reader says where a claim is, never whether it holds: that is `assistant.turn.grounding.sentence`.
"""

from __future__ import annotations

import functools
import re

from llm.shopper_words import LETTER_SIZES

# A limit is said of the shopper's figure, not of a product: "under €45", "your €60 budget".
LIMIT_BEFORE = re.compile(
    r"\b(?:under|below|up to|at most|less than|no more than|within|budget(?: is| of)?|"
    r"max(?:imum)?|spend(?:ing)?|afford|limit(?: of| is)?)\s*(?:of\s*)?(?:your\s*)?(?:about\s*)?$",
    re.I,
)
LIMIT_AFTER = re.compile(r"^\s*(?:budget|limit|or (?:less|under)|max(?:imum)?)\b", re.I)
# A difference of two prices is said as a comparison of two products.
COMPARISON_AFTER = re.compile(
    r"^\s*(?:more|less|cheaper|dearer|pricier|extra|over|above|below|under)\b", re.I
)
COMPARISON_BEFORE = re.compile(r"\b(?:difference of|saves? you|save|saving of)\s*$", re.I)
# An amount for several products together is a sum: no one product's price backs it.
SUM = re.compile(r"\b(?:together|both for|total|combined|in all|for the (?:pair|two|set))\b", re.I)

_STOCK_NOUN = r"(?:left|remaining|in stock|available|pieces?|units?|pairs?|items?)"
_SIZE = "|".join(sorted(LETTER_SIZES, key=len, reverse=True))
SIZE_ITEM = rf"(?:{_SIZE}|\d{{2}}(?:\.5)?)"
# A count of pieces: "3 left", "only 2 in stock", "100 pairs", "50 in navy", "40 of the
# **X** in black". A figure after "size" is the size, never a count.
COUNT = re.compile(
    rf"(?<![\w.,€£$])(?<!size )(?<!EU )(?<!UK )(?<!US )(?P<n>\d+)(?![.,]\d)\s+"
    rf"(?:(?:of\s+(?:the\s+|them\b|these\b|those\b|this\b|that\b)?(?:\*\*[^*\n]+\*\*|[^\d\n.;!?]{{0,40}}?)\s*)?"
    rf"(?:{_STOCK_NOUN}\b|in\s+(?P<in>[a-z]+|{SIZE_ITEM})\b))",
    re.I,
)
NEGATIVE = re.compile(
    r"\b(?:isn't|is not|aren't|are not|not|no longer|out of stock|sold out|unavailable|"
    r"don't|doesn't|do not|does not|none|no|couldn't|could not|can't|cannot|haven't|hasn't|"
    r"nothing|never)\b",
    re.I,
)
AVAILABLE = re.compile(
    r"\b(?:in stock|available|availability|have (?:it|them|one|this|that|the|a)|do have|"
    r"(?:'ve|have|has|got)\s+got|got (?:it|them|one|the|a)|comes? in|stock(?:ed)? in|carry|"
    r"stock(?:s|ed)? (?:it|them|one|the|this|that|a)|yes|there(?:\s+(?:is|are)|'s))\b",
    re.I,
)
EVERY_SIZE = re.compile(
    r"\b(?:every|each|any|all(?: the)?)\s+sizes?\b|\bfull (?:size )?range\b|\bsizes? across\b",
    re.I,
)
SIZE_MENTION = re.compile(rf"\b(?:sizes?|in|an?|EU|UK)\s+(?P<size>{SIZE_ITEM})(?!\w|[.,]\d)")
# Two sizes or more in a row: "S, M and L", "43, 36", "38 and 46".
SIZE_RUN = re.compile(
    rf"(?<![\w€£$.,])(?P<list>{SIZE_ITEM}(?:(?:\s*,\s*|,?\s+(?:and|or|&)\s+){SIZE_ITEM})+)"
    r"(?![\w.,]\d)"
)
# How many colours or sizes a product comes in: "only 2 colours", "4 sizes".
HOW_MANY = re.compile(r"\b(?P<n>\d+)\s+(?:(?P<colours>colou?rs?|colourways|shades)|sizes)\b", re.I)
BOLD = re.compile(r"\*\*(?P<label>[^*\n]{2,120})\*\*")
LINK_LABEL = re.compile(r"\[(?P<label>[^\[\]\n]{2,120})\]\([^()\s]*\)")
LINK_TARGET = re.compile(r"\]\([^()\s]*\)")
# Bold text that is no product name: a heading, a label, a size, an amount.
NOT_A_NAME = re.compile(
    r"(?::$|^[\d€£$.,\s%]+$|^(?:note|tip|price|sizes?|colou?rs?|stock|yes|no|good news)\b)",
    re.I,
)
# Shop policy: delivery and returns, said as a promise.
POLICY = re.compile(
    r"\b(?:ship(?:s|ping|ped)?|deliver(?:y|ies|ed|s)?|dispatch(?:ed|es)?|postage|"
    r"returns?|returnable|refunds?|exchanges?|warrant(?:y|ies)|guarantee[ds]?|"
    r"arriv(?:e|es|ed|ing|al)|turnaround)\b",
    re.I,
)
PROMISE = re.compile(
    r"\b(?:free|within|\d+[\s-]*(?:working\s+)?(?:days?|weeks?|hours?|months?|years?)|next[- ]day|"
    r"same[- ]day|express|no questions|hassle|easy|policy|guaranteed|lifetime|tomorrow)\b",
    re.I,
)
# Figures a sentence may state that are no claim about a product's data.
HARMLESS_NUMBER = re.compile(
    r"^\s*(?:[-*•]|\d+[.)])\s|"  # a list marker
    r"\b\d+\s+(?:\w+\s+)?(?:options?|picks?|choices?|products?|styles?|ideas?|results?|"
    r"matches?)\b|\b\d+\s+of\s+\d+\b|\b(?:19|20)\d\d\b",
    re.I,
)


def and_join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


@functools.lru_cache(maxsize=16)
def colour_pattern(colours: tuple[str, ...]) -> re.Pattern:
    colour = "|".join(re.escape(c) for c in sorted(colours, key=len, reverse=True)) or "(?!)"
    return re.compile(rf"\b(?:{colour})\b", re.I)


@functools.lru_cache(maxsize=16)
def colour_list_pattern(colours: tuple[str, ...]) -> re.Pattern:
    colour = "|".join(re.escape(c) for c in colours) or "(?!)"
    return re.compile(
        rf"\b(?:comes? in|available in|colou?rs?:?|in stock in|stocked in|have it in)\s+"
        rf"(?P<list>(?:{colour})(?:(?:,\s*|,?\s+(?:and|or)\s+)(?:{colour}))+)\b",
        re.I,
    )
