"""Changes of mind, lifts, one-offs and irony: how a message says a fact no longer holds,
holds only once, or was never meant.

- `plain_readings` rewrites a few ways of stating a preference or a new size into the plain
  statement the clause readers already understand: "never show me orange" dislikes orange
  (it is a standing dislike, not an instruction), "I switched from Vela to Tern" dislikes
  Vela and likes Tern, "my waist went from 32 to 34" states 34, "make that a 41" states 41.
- `lift_facts` reads a preference lifted: a named one ("yellow's fine now", "I don't mind
  Vela any more") is its slot with `neutral`; a whole category ("any brand is fine",
  "colour doesn't matter to me now") is `<category>/any`; the budget ("forget the budget")
  is `none`. A lift needs a sign that the mind changed or that no limit stands ("now",
  "again", "after all", "any more", "any", "no object"): "I don't mind grey" alone says
  too little, and "any colour is fine, except beige" keeps only the exception.
- `once` and `ironic` mark a sentence whose figures are for one purchase ("just this once",
  "for this jacket only", "but not usually") or said in irony ("yeah right", "said no one
  ever"): it states no standing fact.
"""

from __future__ import annotations

import re

from llm.fact_schema import ANY_KEY, BUDGET_SLOT, NEUTRAL, NO_BUDGET, budget_sentence, slot_key
from llm.offline.judge.judged import Judged
from llm.offline.judge.predicates import NOT_BRANDS, PHRASES, TOKEN
from llm.offline.judge.preferences import preference_fact

# --- Plain readings --------------------------------------------------------------------

_NEVER_SHOW = re.compile(
    r"^(?P<lead>\W*(?:please\s+)?)(?:(?:never|don't\s+ever|do\s+not\s+ever|don't|do\s+not)\s+"
    r"(?:ever\s+)?(?:show|suggest|recommend|offer|send)(?:\s+me)?|i\s+never\s+want\s+to\s+see|"
    r"i\s+don't\s+(?:ever\s+)?want\s+to\s+see)\s+"
    r"(?:(?:me\s+)?(?:anything|any|stuff|things|items|clothes)\s+(?:in|with|from|made\s+(?:of|from)|by)\s+|"
    r"any\s+)?(?P<what>.+?)(?P<tail>(?:\s+to\s+me)?(?:\s+(?:again|ever|any\s?more|please))*)"
    r"(?P<end>\s*(?:[,;]\s*(?P<reason>.*))?[.!]*)$",
    re.I,
)
# A "don't show me" is standing only with a sign that it is: "ever", "again", a reason.
_STANDING = re.compile(r"\b(?:never|ever|again|any\s?more)\b", re.I)
_KEEP_AWAY = re.compile(
    r"^(?P<lead>\W*(?:please\s+)?)keep\s+(?P<what>.+?)\s+away\s+from\s+me\b", re.I
)
_CHANGE_VERB = (
    r"(?:switched|switch|moved|move|changed|change|went|gone|go|swapped|swap|converted|"
    r"jumped|dropped|shifted)"
)
_SWITCH = re.compile(
    rf"\b(?P<who>i|i've|i\s+have|we)\s+(?:\w+\s+)?{_CHANGE_VERB}(?:\s+over|\s+up|\s+down)?\s+from\s+"
    rf"(?P<old>.+?)\s+to\s+(?P<new>.+?)(?P<rest>\s+(?:this|last|in|for|since|a|recently|"
    rf"lately|now)\b.*|[,.;!?].*|$)",
    re.I,
)
_WHEN = re.compile(
    r"\s+(?:(?:this|last|in\s+the)\s+\w+|recently|lately|since\s+\w+|\w+\s+ago|in\s+\d{4})\b", re.I
)
_MEASURE_FROM_TO = re.compile(
    rf"\b(?P<whose>my\s+(?:waist|inseam|shoe\s+size|size|feet|foot))\s+(?:has\s+|'s\s+)?"
    rf"{_CHANGE_VERB}\s+(?:up\s+|down\s+)?from\s+(?:an?\s+|size\s+)?[\w.]+\s+to\s+"
    rf"(?:an?\s+|size\s+)?(?P<new>[\w.]+)",
    re.I,
)
_MAKE_THAT = re.compile(
    r"^(?P<lead>\W*(?:actually|sorry|oops|no|wait)?[\s,]*)(?:make|change)\s+(?:that|it)\s+"
    r"(?:to\s+)?(?=(?:an?\s+|size\s+)?[\dXSMLxsml])",
    re.I,
)
_SIZE_LIKE = re.compile(r"^(?:an?\s+|size\s+)?(?:\d{1,2}(?:\.5)?|x{0,3}[sl]|xs|m)$", re.I)


def plain_readings(text: str) -> str:
    """The message with its changes and standing refusals said plainly, sentence by sentence
    (the readers take it from there)."""
    parts = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(_plain(part) for part in parts)


def _plain(sentence: str) -> str:
    shown = _NEVER_SHOW.match(sentence)
    if shown and (_STANDING.search(sentence) or shown.group("reason")):
        reason = shown.group("reason")
        lead = re.sub(r"please\s+", "", shown.group("lead"), flags=re.I)
        return f"{lead}I hate {shown.group('what')}" + (f", {reason}" if reason else ".")
    away = _KEEP_AWAY.match(sentence)
    if away:
        lead = re.sub(r"please\s+", "", away.group("lead"), flags=re.I)
        return f"{lead}I hate {away.group('what')}" + sentence[away.end() :]
    measure = _MEASURE_FROM_TO.search(sentence)
    if measure:
        return (
            sentence[: measure.start()]
            + f"{measure.group('whose')} is {measure.group('new')} now"
            + sentence[measure.end() :]
        )
    switch = _SWITCH.search(sentence)
    if switch:
        old, new = switch.group("old").strip(), switch.group("new").strip()
        if _SIZE_LIKE.match(old) and _SIZE_LIKE.match(new):
            new = re.sub(r"^(?:an?|size)\s+", "", new, flags=re.I)
            stated = f"I'm now a {new}"
        else:
            stated = f"I'm over {old}, and I love {new}"
        rest = switch.group("rest")
        # When the switch was made ("last winter") is past; the state it led to holds now.
        when = _WHEN.match(rest)
        rest = " now" + rest[when.end() :] if when else rest
        return sentence[: switch.start()] + stated + rest
    made = _MAKE_THAT.match(sentence)
    if made:
        return f"{made.group('lead')}I'm " + sentence[made.end() :]
    return sentence


# --- Lifts ------------------------------------------------------------------------------

_CATEGORY = {
    "colour": r"colou?rs?|shades?",
    "brand": r"brands?|labels?|makers?|designers?",
    "material": r"fabrics?|materials?|textiles?",
    "design": r"fits?|cuts?|styles?|designs?",
}
_FINE = r"(?:fine|ok|okay|alright|all\s+right|good|great|cool)"
_MATTER = r"(?:doesn't|does\s+not|don't|do\s+not|no\s+longer|won't)\s+(?:really\s+)?matter"
_CARE = (
    r"(?:not|no\s+longer|never)\s+(?:really\s+|too\s+|that\s+|very\s+)?(?:fussy|bothered|picky|"
    r"particular|precious|fussed|hung\s+up)\s+(?:about|over|with)"
    r"|(?:stopped|stop|quit)\s+(?:caring|worrying|fretting)\s+about"
    r"|(?:don't|do\s+not)\s+(?:really\s+)?care\s+(?:about|which|what)"
)


def _category_lift(category: str) -> re.Pattern:
    noun = _CATEGORY[category]
    return re.compile(
        rf"\b(?:any|whatever|whichever|every)\s+(?:\w+\s+)?(?:{noun})\b(?:\s+(?:is|are|'s|will\s+do|"
        rf"would\s+be|works?))?(?:\s+(?:\w+\s+)?){_FINE}?"
        rf"|\b(?:happy|fine|ok|okay|open)\s+(?:with|to)\s+(?:any|all|every)\s+(?:\w+\s+)?(?:{noun})\b"
        rf"|\b(?:{noun})\s+(?:really\s+)?{_MATTER}"
        rf"|\b(?:{_CARE})\s+(?:the\s+|which\s+|what\s+)?(?:{noun})\b",
        re.I,
    )


_CATEGORY_LIFTS = {category: _category_lift(category) for category in _CATEGORY}
# What says a category is lifted outright, not just mentioned: "any brand" lifts only with
# a verdict ("is fine", "will do") or a changed mind.
_VERDICT = re.compile(
    rf"\b{_FINE}\b|\bwill\s+do\b|{_MATTER}|\b(?:{_CARE})\b|\bhappy\s+with\b|\bopen\s+to\b", re.I
)
_EXCEPTION = re.compile(
    r"\b(?:but|except|apart\s+from|other\s+than|as\s+long\s+as|so\s+long\s+as|besides|"
    r"anything\s+but|everything\s+but|unless|if)\b",
    re.I,
)
_CHANGED = r"(?:now|again|after\s+all|these\s+days|nowadays|any\s?more|no\s+longer|by\s+now)"
_NAMED_LIFTS = (
    # "yellow's fine now", "polyester is OK after all", "green is fine by me again"
    re.compile(
        rf"^(?P<what>.+?)\s+(?:is|are|'s|seems?|feels?)\s+(?:totally\s+|perfectly\s+|actually\s+)?"
        rf"{_FINE}(?:\s+(?:for|by|with)\s+me)?\s+{_CHANGED}\b",
        re.I,
    ),
    # "I don't mind Vela any more", "I no longer mind polyester"
    re.compile(
        rf"\bi\s+(?:really\s+)?(?:don't|do\s+not)\s+mind\s+(?P<what>.+?)\s+{_CHANGED}\b"
        rf"|\bi\s+no\s+longer\s+mind\s+(?P<what2>.+?)$",
        re.I,
    ),
    # "orange doesn't bother me any more"
    re.compile(
        rf"^(?P<what>.+?)\s+(?:doesn't|does\s+not|don't|do\s+not|no\s+longer)\s+(?:bother|"
        rf"irritate|annoy|itch|worry)s?\s+me\s+{_CHANGED}\b",
        re.I,
    ),
    # "I'm fine with wool now", "I'm OK with it again"
    re.compile(
        rf"\b(?:i'm|i\s+am)\s+(?:totally\s+|perfectly\s+)?{_FINE}\s+with\s+(?P<what>.+?)\s+{_CHANGED}\b",
        re.I,
    ),
)
_BUDGET_LIFT = re.compile(
    r"\bforget\s+(?:about\s+)?(?:the|my)\s+budget\b"
    r"|\b(?:" + _CARE + r")\s+(?:the\s+|my\s+)?(?:budget|price|prices|cost|money)\b"
    r"|\b(?:money|price|cost)(?:'s|\s+is)\s+no\s+object\b"
    r"|\b(?:the\s+|my\s+)?(?:budget|price|cost)\s+"
    + _MATTER
    + r"\s+(?:to\s+me\s+)?"
    + _CHANGED
    + r"|\bno\s+(?:budget|spending\s+limit|price\s+limit)\s+(?:for\s+me\s+)?"
    + _CHANGED
    + r"|\b(?:money|budget|cash)(?:'s|\s+is|\s+isn't|\s+is\s+not)\s+(?:not\s+)?(?:tight|an\s+issue|"
    r"a\s+problem)\s+" + _CHANGED,
    re.I,
)
_HEDGE = re.compile(r"\b(?:much|i\s+guess|i\s+suppose|i\s+think|maybe|probably|kind\s+of)\b", re.I)


def _terms(text: str, at: int) -> list[Judged]:
    """The colours, designs, materials, values and brands a span of text names."""
    tokens = list(TOKEN.finditer(text))
    found: list[Judged] = []
    index = 0
    while index < len(tokens):
        for width in range(min(6, len(tokens) - index), 0, -1):
            words = tuple(t.group(0).lower() for t in tokens[index : index + width])
            hit = PHRASES.get(words)
            if hit and hit[0] in ("term", "term+"):
                found.append(preference_fact(hit[1], NEUTRAL, at + tokens[index].start()))
                index += width
                break
        else:
            token = tokens[index]
            word = token.group(0)
            if word[:1].isupper() and word.lower() not in NOT_BRANDS and word.isalpha():
                end = index + 1
                while (
                    end < len(tokens)
                    and tokens[end].group(0)[:1].isupper()
                    and tokens[end].group(0).lower() not in NOT_BRANDS
                ):
                    end += 1
                name = " ".join(t.group(0) for t in tokens[index:end])
                term = ("brand", slot_key(name), name)
                found.append(preference_fact(term, NEUTRAL, at + token.start()))
                index = end
            else:
                index += 1
    return found


def lift_facts(text: str, at: int) -> list[Judged]:
    """The preferences a sentence lifts, as facts that replace the old ones."""
    if _HEDGE.search(text) or once(text):
        return []
    facts: list[Judged] = []
    if _BUDGET_LIFT.search(text):
        facts.append(Judged(at, budget_sentence(NO_BUDGET), "budget", BUDGET_SLOT, NO_BUDGET))
    if not _EXCEPTION.search(text):
        for category, pattern in _CATEGORY_LIFTS.items():
            match = pattern.search(text)
            if match and _VERDICT.search(text):
                term = (category, ANY_KEY, ANY_KEY)
                facts.append(preference_fact(term, NEUTRAL, at + match.start()))
    for pattern in _NAMED_LIFTS:
        for clause in re.split(r"\s*(?:,|;|\bbut\b|\band\b(?=\s+i\b))\s*", text):
            match = pattern.search(clause)
            if not match:
                continue
            what = match.group("what") if match.group("what") else match.groupdict().get("what2")
            if what and what.lower() in ("it", "them", "that"):
                what = text[
                    : text.lower().find(clause.lower())
                ]  # "wool used to itch, but ... it now"
            if what:
                start = text.find(what)
                facts += _terms(what, at + max(start, 0))
    return facts


# --- Once, and irony --------------------------------------------------------------------

_ONCE = re.compile(
    r"\b(?:just|only)\s+(?:this|the\s+once|for\s+once)\b(?:\s+(?:once|time|one))?|\bfor\s+once\b"
    r"|\bthis\s+once\b|\bone[-\s]off\b|\bas\s+a\s+(?:treat|one[-\s]off|gift|present)\b"
    r"|\btreat(?:ing)?\s+myself\b|\bthis\s+is\s+a\s+(?:gift|present)\b"
    r"|\b(?:but|though|although)\s+not\s+(?:usually|normally|generally|always|as\s+a\s+rule)\b"
    r"|\bthan\s+(?:usual|normal|i\s+usually\s+do)\b"
    r"|\b(?:for|on)\s+(?:this|these|that|those)\s+(?!time\b|month\b|year\b|week\b|season\b)\w+"
    r"(?:\s+only)?\b",
    re.I,
)
_IRONY = re.compile(
    r"\bsaid\s+no\s+one\s+ever\b|\byeah,?\s+(?:right|sure|because)\b|\blike\s+i'd\s+ever\b"
    r"|\bnothing\s+says\b|\bwho\s+doesn't\s+(?:want|love|like)\b|\bjust\s+what\s+i\s+(?:always\s+)?"
    r"(?:wanted|needed)\b|\b(?:oh|wow),?\s+(?:great|brilliant|wonderful|fantastic|joy|lovely|"
    r"perfect|super)\b|\b(?:love|adore)\s+(?:how|it\s+when)\b|\bbecause\s+i\s+(?:just\s+)?"
    r"(?:love|adore)\b|\bi\s+(?:just\s+)?(?:love|adore)\s+(?:paying|spending|wasting)\b"
    r"|\b(?:a\s+fortune|an\s+arm\s+and\s+a\s+leg)\b.*\b(?:love|adore|fun)\b|\bsarcasm\b|/s\b",
    re.I,
)


def once(text: str) -> bool:
    """True when the sentence says its figures are for one purchase or this once."""
    return bool(_ONCE.search(text))


def ironic(text: str) -> bool:
    """True when the sentence is said in irony: it means the opposite of its words."""
    return bool(_IRONY.search(text))


# One brand's sizing is no size of the shopper's: "Kestrel runs small so I take a 43 in
# theirs", "I go up a size in Vela".
_ONE_BRANDS_SIZE = re.compile(
    r"\b(?:runs?|running|comes?|come\s+up|fits?|sizes?)\s+(?:a\s+bit\s+|quite\s+|really\s+|very\s+)?"
    r"(?:small|large|big|tight|narrow|generous|short|long)\b|\bin\s+(?:theirs|their\s+\w+)\b"
    r"|\b(?:in|with|for)\s+(?:that|this)\s+brand\b",
    re.I,
)
_RELATIVE_FOR_BRAND = re.compile(
    r"\b(?:up|down)\s+(?:a|one|two|half\s+a)\s+sizes?\s+(?:in|for|with)\s+(?![Ii]\b)[A-Z][\w&']*"
    r"|\b(?:in|for|with)\s+(?![Ii]\b)[A-Z][\w&']*,?\s+[Ii]\s+(?:size|go)\s+(?:up|down)\b"
)


def one_brands_sizing(text: str) -> int | None:
    """Where a sentence starts giving one brand's sizes, not the shopper's own; None when
    it gives none ("I'm a 40, but Vela runs small so 41 there": from "runs small")."""
    match = _ONE_BRANDS_SIZE.search(text)
    return match.start() if match else None


def relative_for_one_brand(text: str) -> bool:
    """True when a size up or down is said for one brand only."""
    return bool(_RELATIVE_FOR_BRAND.search(text))
