"""Plain statements of a figure that changed and of a style said in a roundabout shape.

- `figure_restated`: "Budget used to be 50, it's 80 now", "was a size 8 last year, a 10
  these days": a figure in the past, then a bare new one said to hold now. The new one takes
  the old one's place, in its words and its system ("I was a UK 14, now a 16": UK 16).
- `style_restated`: a cleft said plainly ("slim shirts are what I like" -> "I like slim
  shirts") and a look the shopper says they are ("I'm quite minimalist in how I dress"), with
  a degree or a word of dress that makes it a look, not a build ("I'm quite slim") or a
  mood ("I'm very casual about it").
"""

from __future__ import annotations

import re

from llm.offline.judge.predicates import PHRASES
from llm.shopper_words import LETTER_SIZE_ALTERNATIVES as _LETTER

_FIGURE = (
    rf"(?:(?i:an?|size|uk|us|eu)\s+)*[\u20ac\u00a3$]?\d{{1,4}}(?:\.5)?|(?:(?i:an?)\s+)?"
    rf"(?:{_LETTER}|(?i:small|medium|large))"
)
_NOW_WORDS = r"(?i:now|these\s+days|nowadays|today)"
_WAS_THEN_NOW = re.compile(
    r"^(?P<head>(?:[^,;:]*?\s)?)(?P<verb>(?i:was|were|used\s+to\s+(?:be|spend|wear|take)|could\s+spend))\s+"
    rf"(?P<old>{_FIGURE})\b(?P<mid>[^,;:.!?]*?)\s*[,;:]\s*(?:(?i:but|and)\s+)?"
    rf"(?P<now1>{_NOW_WORDS}\s*,?\s*)?(?:(?i:it's|it\s+is|i'm|i\s+am|they're|they\s+are)\s+)?"
    rf"(?P<new>{_FIGURE})\b(?P<now2>\s+{_NOW_WORDS})?(?P<end>\s*[.!]*)$"
)
_THEN = re.compile(r"\s+(?:(?:\w+\s+){1,2}ago|before|back\s+then|last\s+\w+|previously)\b", re.I)
_THEN_FIRST = re.compile(
    r"^\W*(?:(?:last|this)\s+\w+|(?:\w+\s+){1,2}ago|back\s+then|before|previously)\s*,?\s*", re.I
)
_PRESENT = {"could spend": "can spend", "used to spend": "spend", "used to wear": "wear",
            "used to take": "take"}  # fmt: skip


def _was_then_now(match: re.Match) -> str:
    head, verb = match.group("head"), re.sub(r"\s+", " ", match.group("verb").lower())
    if verb in _PRESENT:
        said = f"{head}{_PRESENT[verb]}"
    elif not head.strip() or head.rstrip().lower().endswith(" i") or head.strip().lower() == "i":
        said = re.sub(r"(?i)\bi\s*$", "", head) + "I'm"
    else:
        plural = verb == "were" or head.rstrip().lower().endswith("s")
        said = head + ("are" if plural else "is")
    said = _THEN_FIRST.sub("", said)
    mid = _THEN.sub("", match.group("mid"))
    old, new = match.group("old"), match.group("new")
    # "I was a UK 14, now a 16": the new figure is in the old one's system.
    system = re.search(r"\b(?i:uk|us|eu)\s+", old)
    if system and not re.search(r"\b(?i:uk|us|eu)\b", new):
        new = re.sub(r"^((?i:an?|size)\s+)?", lambda m: (m.group(0) or "") + system.group(0), new)
    return f"{said} {new}{mid} now{match.group('end')}"


def figure_restated(sentence: str) -> str:
    """The sentence with a figure of the past and the new one said to hold now put as the
    new one alone ("budget used to be 50, it's 80 now" -> "budget is 80 now")."""
    was = _WAS_THEN_NOW.match(sentence)
    if was and (was.group("now1") or was.group("now2")):
        return _was_then_now(was)
    return sentence


# A cleft: "slim shirts are what I like", "what I avoid is polyester": said plainly, the
# verb before what it judges.
_CLEFT_VERB = (
    r"(?:really\s+|usually\s+|always\s+)?(?:like|love|prefer|want|adore|wear|buy|go\s+for|"
    r"hate|avoid|dislike|can't\s+stand)"
)
_CLEFT = re.compile(
    rf"^(?P<lead>\W*)(?P<what>[^,;]+?)\s+(?:is|are|'s|'re)\s+(?:exactly\s+|just\s+)?what\s+i\s+"
    rf"(?P<verb>{_CLEFT_VERB})\b(?P<rest>.*)$"
    rf"|^(?P<lead2>\W*)what\s+i\s+(?P<verb2>{_CLEFT_VERB})\s+(?:is|are)\s+(?P<what2>.+)$",
    re.I,
)
# "I'm quite minimalist in how I dress": a look the shopper says they are, with a degree or
# a word of dress that makes it a look and not a build or a mood.
_I_AM_A_LOOK = re.compile(
    r"\b(?:i'm|i\s+am)\s+(?P<degree>(?:quite|very|pretty|fairly|rather|really|super|so|totally|"
    r"a\s+bit|a\s+little|kind\s+of|kinda|more)\s+)?(?P<look>[a-z-]+)(?!\s+(?:about|with|on|over|to|at|for)\b)"
    r"(?P<dress>\s+(?:in\s+(?:style|how\s+i\s+dress|the\s+way\s+i\s+dress|my\s+style|my\s+taste)|"
    r"when\s+it\s+comes\s+to\s+(?:clothes|style|fashion)|style-wise|by\s+nature))?",
    re.I,
)


def style_restated(sentence: str) -> str | None:
    """The sentence with its cleft or its look said plainly, or None when it has neither."""
    cleft = _CLEFT.match(sentence)
    if cleft:
        what = cleft.group("what") or cleft.group("what2")
        verb = cleft.group("verb") or cleft.group("verb2")
        lead = cleft.group("lead") or cleft.group("lead2") or ""
        return f"{lead}I {verb} {what}" + (cleft.group("rest") or "")
    look = _I_AM_A_LOOK.search(sentence)
    if look and (look.group("degree") or look.group("dress")) and _is_look(look.group("look")):
        return sentence[: look.start()] + f"I like {look.group('look')}" + sentence[look.end() :]
    return None


def _is_look(word: str) -> bool:
    """A design word for a look ("minimalist", "preppy"), not a fit or a cut ("slim")."""
    hit = PHRASES.get((word.lower(),))
    return bool(
        hit
        and hit[0] == "term"
        and hit[1][0] == "design"
        and hit[1][2].endswith(("styles", "designs"))
    )
