"""The local screen in front of a hosted judge: could a message state a durable fact?

A hosted judge is paid for and waited on, so it is asked only when this cheap screen finds
something that could be a statement about the shopper (docs/memory.md). Pure functions; the
words a fact can be about are the closed list's (`llm.fact_schema`) and the shopper's
(`llm.shopper_words`).
"""

from __future__ import annotations

import re

from llm.fact_schema import (
    COLOUR_TERMS,
    DESIGN_TERMS,
    MATERIAL_TERMS,
    OCCASION_PHRASES,
    VALUE_TERMS,
)
from llm.shopper_words import LETTER_SIZE_WORDS, occasion_evidence_words
from memoryapp.screening import PEOPLE, summary_screen, text_fold

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|myself)\b", re.I)
_CUE = re.compile(
    r"\b(?:love|loves|loved|like|likes|prefer|prefers|preferred|hate|hates|dislike|dislikes|"
    r"adore|fan|favou?rite|favou?rites|can't\s+stand|cannot\s+stand|avoid|allergic|itch\w*|"
    r"irritat\w*|bothers?|suits?|wear|wears|wore|wearing|size|sized|sizes|fit|fits|budget|"
    r"spend|afford|max|maximum|under|up\s+to|loyal|always|never|usually|only|stick|into|"
    r"shopping\s+for|going\s+to|off\s+to|heading|need|want|looking|tight|"
    r"anything\s+but|not\s+a\s+fan|no\s+more|any\s+more|anymore|went|gone|switched|changed|"
    r"not|no|never|nothing|go-to|rate|trust|buy|swear|stopped|enough|best|worst|rather|"
    r"choose|over|tops|ideal|around|about|boring|hard|way|for\s+life)\b",
    re.I,
)
_FACT_WORD = re.compile(
    r"(?<!['\u2019])\b(?:x{0,3}[sl]|xs|m|\d{1,3}(?:[.,]5)?|waist|inseam|eur|euros?|€)(?!\w)"
    r"|€|\b[wl]\s?\d{2}\b|\b(?:"
    + "|".join(
        sorted(
            {
                re.escape(term)
                for table in (COLOUR_TERMS, DESIGN_TERMS, MATERIAL_TERMS, VALUE_TERMS)
                for term in table
            }
            | {re.escape(key) for key in OCCASION_PHRASES}
            | {re.escape(w) for w in LETTER_SIZE_WORDS if len(w) > 1},
            key=len,
            reverse=True,
        )
    )
    + r")\b",
    re.I,
)


# A question or a search said of no one: "do you have jeans under 50 EUR?", "show me
# black boots in 41". It states nothing about the shopper unless a first-person word says so.
_ASKING = re.compile(
    r"^\W*(?:(?:so|and|also|ok|okay|hi|hey|hello|well|oh|um|btw|please)\b[\s,]*)*"
    r"(?:show|find|search|get|give|list|recommend|suggest|any|anything|got|have\s+you|do|does|"
    r"did|can|could|would|will|is|are|was|were|what|which|where|when|who|why|how|"
    r"looking\s+for|need|want)\b",
    re.I,
)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)?\b|\b[A-Z]{2,}\b")
_NOT_NAMES = frozenset(
    "Hi Hey Hello Thanks Thank Ok Okay Yes No Nope Yeah Sure Great Cool Nice Please Sorry "
    "Show Find Do Does Can Could Would Will Is Are What Which Where When Who Why How Any "
    "The A An And But So Also Just Well Oh Got Have Has Maybe Perhaps Good Bye Cheers".split()
)


# What makes a question or a request say something of the shopper too: "do you have
# these in my size, M?", "I'm a 42, any boots?". A "me" after a request verb does not.
_SELF_STATEMENT = re.compile(
    r"\b(?:i'm|im|i\s+am|i've|mine|i\s+(?:\w+\s+)?(?:wear|wore|prefer|like|love|hate|dislike|"
    r"liked|loved|hated|adore|adored|"
    r"avoid|usually|always|never|only|can't|cannot|don't|do\s+not|stick|buy|go\s+for|fit|"
    r"take|am|was|could\s+spend|can\s+spend|spend|afford)|my\s+(?:\w+\s+)?(?:size|budget|waist|"
    r"inseam|feet|style|usual|favou?rite|go-to|limit|max)|for\s+me|anything\s+but|"
    # A waist or leg measurement only ever describes the one who asks ("jeans, 32 waist").
    r"\d{2}\s*(?:inch\s+|in\s+|\"\s*)?(?:waist|inseam|leg)|(?:waist|inseam)\s+(?:of\s+)?\d{2}|"
    r"w\s?\d{2}\s*l\s?\d{2}|"
    r"^\W*(?:could|can)\s+spend)\b",
    re.I,
)


_OCCASION = re.compile(
    r"\b(?:"
    + "|".join(
        sorted(
            {re.escape(w) for w in occasion_evidence_words()},
            key=len,
            reverse=True,
        )
    )
    + r")\b",
    re.I,
)


# What a standing refusal and a lift are said with: the judge reads them as a dislike and as
# a preference set aside, so the screen lets them through.
_STANDING_REFUSAL = re.compile(
    r"^\W*(?:please\s+)?(?:never|don't\s+ever|do\s+not\s+ever|don't|do\s+not)\s+(?:ever\s+)?"
    r"(?:show|suggest|recommend|offer)\b|^\W*keep\s+.+\s+away\s+from\s+me\b",
    re.I,
)
_LIFT = re.compile(
    r"\b(?:fine|ok|okay|alright|happy)\s+(?:with|by)\s+me\b|\bhappy\s+with\s+any\b"
    r"|\b(?:i\s+)?(?:don't|do\s+not|no\s+longer)\s+mind\b|\b(?:doesn't|does\s+not|don't)\s+matter\b"
    r"|\bnot\s+(?:fussy|bothered|picky|fussed)\b|\bstopped\s+caring\b|\bno\s+object\b"
    r"|\bforget\s+(?:about\s+)?the\s+budget\b|\b(?:is|are|'s)\s+fine\b",
    re.I,
)
# A tight budget said in words ("I'm skint", "pinching pennies") is a cue of its own.
_TIGHT_SAID = re.compile(
    r"\b(?:shoestring|skint|broke|strapped|pinching|penny|pennies|splash\s+out|careful\s+with|"
    r"keeping\s+spending|watching\s+my\s+spending|poor\s+student|fine\s+with\s+any)\b",
    re.I,
)


def judging_needed(message: str, question: str | None = None) -> bool:
    """A cheap local screen: could this message state a durable fact about the shopper?

    Nothing to judge in a message with no word a fact could be about (a size, a figure, a
    colour, a material, a name, a cue of liking or wearing); nor in a question or a search
    that says nothing of the shopper; nor in one about someone else only; nor in one that
    is all claims and instructions. Written to miss almost nothing: a turn let through
    costs one judge call, a turn held back may cost a fact.
    """
    text = text_fold(message or "")
    names = [n for n in _NAME.findall(text) if n not in _NOT_NAMES]
    cued = _CUE.search(text) or _TIGHT_SAID.search(text) or _LIFT.search(text)
    if not (cued or _FACT_WORD.search(text) or names):
        return False
    refusal = _STANDING_REFUSAL.match(text)  # "never show me orange": a dislike, not an order
    if not refusal and not summary_screen(text, max_chars=len(text) + 1)[0]:
        return False  # every sentence a claim or an instruction: the judge keeps none
    # An occasion counts even inside a search or a gift: the shopper is shopping for it.
    self_statement = (
        _SELF_STATEMENT.search(text) or _OCCASION.search(text) or _LIFT.search(text) or refusal
    )
    if PEOPLE.search(text) and not self_statement:
        return False
    if _ASKING.match(text) or text.rstrip().endswith("?"):
        return bool(self_statement)
    return True
