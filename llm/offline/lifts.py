"""Ways of saying a remembered preference does not hold: "any brand", "the budget doesn't
matter now", "red is fine again". Each lifts a default by name (`brand`, `colour`, `size`,
`budget`) or one colour (`colour:red`); the assistant keeps a lift for the rest of the visit.
"""

from __future__ import annotations

import re
from functools import lru_cache

from llm.fact_schema import ANY_KEY, NEUTRAL, NO_BUDGET
from llm.offline.judge import facts_judge
from llm.offline.vocabulary import Vocabulary

# Ways of saying a remembered preference does not hold this turn, by the default it lifts.
_ANY = r"(?:any|all|every|other|whatever|different|various|more|another)"
LIFTS: dict[str, re.Pattern[str]] = {
    "brand": re.compile(
        rf"\b{_ANY}\s+(?:the\s+|other\s+)?(?:brands?|makes?|labels?|designers?)\b"
        r"|\b(?:brands?|labels?|makes?)\s+(?:doesn'?t|does not|don'?t|do not)\s+matter\b"
        r"|\b(?:regardless of|no matter (?:the|which|what)|never mind the)\s+(?:the\s+)?brand"
        r"|\bnot (?:only|just|necessarily)\b|\bdon'?t (?:stick|keep) to\b"
        r"|\bbesides\b|\bapart from\b|\bnot from\b|\bnot by\b"
    ),
    "colour": re.compile(
        rf"\b{_ANY}\s+(?:the\s+)?(?:colou?rs?|shades?)\b"
        r"|\bcolou?rs?\s+(?:doesn'?t|does not|don'?t|do not|isn'?t|is not)\s+(?:matter|important)"
        r"|\b(?:don'?t|do not) mind (?:the |which |what )?colou?r|\bin any colou?r\b"
        r"|\b(?:regardless of|no matter (?:the|which|what)|never mind the)\s+(?:the\s+)?colou?r"
    ),
    "size": re.compile(
        rf"\b{_ANY}\s+sizes?\b|\bsizes?\s+(?:doesn'?t|does not|don'?t|do not)\s+matter\b"
        r"|\b(?:regardless of|no matter (?:the|which|what))\s+(?:the\s+)?size"
    ),
    "budget": re.compile(
        r"\b(?:any|whatever the|no matter the|regardless of)\s+(?:the\s+)?(?:price|cost|budget)"
        r"|\b(?:price|cost|budget)\s+(?:doesn'?t|does not|is no|isn'?t)\s+(?:matter|object|an issue)"
        r"|\bmoney (?:is )?no object\b|\bno (?:price )?limit\b|\bno budget\b"
        r"|\b(?:ignore|forget|over) (?:my |the )?budget\b|\bsplash out\b|\bsplurge\b"
    ),
}

# "red is fine again", "I don't mind yellow any more", "pink is back in".
_BACK = re.compile(
    r"\b(?P<a>[a-z]+(?: [a-z]+)?)(?: is| are|'s) (?:fine|ok|okay|alright|good|back)"
    r"(?: (?:again|now|in|after all|these days|by me|actually|too|as well))+\b"
    r"|\b(?:don'?t|do not) mind (?P<b>[a-z]+(?: [a-z]+)?) (?:any ?more|now|again)\b"
    r"|\b(?:back to|okay with|ok with|fine with) (?P<c>[a-z]+(?: [a-z]+)?) (?:again|now)\b"
)


def colours_back(lowered: str, vocabulary: Vocabulary) -> list[str]:
    found = []
    for match in _BACK.finditer(lowered):
        phrase = next(group for group in match.groups() if group)
        for words in (phrase, phrase.split()[-1]):
            colour = vocabulary.colour_phrases.get(words)
            if colour and colour not in found:
                found.append(colour)
                break
    return found


def lifts_read(lowered: str, vocabulary: Vocabulary) -> frozenset[str]:
    """The defaults a message lifts: "brand", "budget", ..., or one colour ("colour:red").

    Read twice, by the ways of saying it the search knows and by the fact judge (the lift
    memory will keep: "brown's fine again", "budget's not a thing anymore"), so what the
    shop remembers as lifted is lifted in this chat too."""
    lifted = {name for name, cue in LIFTS.items() if cue.search(lowered)}
    lifted |= {f"colour:{c}" for c in colours_back(lowered, vocabulary)}
    return frozenset(lifted | judged_lifts(lowered, vocabulary))


def judged_lifts(lowered: str, vocabulary: Vocabulary) -> frozenset[str]:
    """The lifts the fact judge reads in the message: what memory will keep as lifted."""
    return _judged_lifts(lowered, tuple(vocabulary.colour_phrases.values()))


@lru_cache(maxsize=4096)  # a conversation's earlier messages are read again each turn
def _judged_lifts(lowered: str, colours: tuple[str, ...]) -> frozenset[str]:
    lifted: set[str] = set()
    for fact in facts_judge(lowered):
        category, _, key = fact.slot.partition("/")
        if fact.slot == "budget" and fact.value == NO_BUDGET:
            lifted.add("budget")
        elif fact.value != NEUTRAL:
            continue
        elif category in ("brand", "size"):
            lifted.add(category)
        elif category == "colour" and key == ANY_KEY:
            lifted.add("colour")
        elif category == "colour" and key in colours:
            lifted.add(f"colour:{key}")
    return frozenset(lifted)
