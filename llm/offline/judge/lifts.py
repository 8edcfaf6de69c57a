"""Lifts: a preference, a whole category or the budget the shopper no longer holds to.

A named preference lifted ("yellow's fine now", "I don't mind Vela any more", "polyester is
back on the table", "forget what I said about beige") is its slot with `neutral`; a whole
category ("any brand is fine", "brand isn't important to me any more", "I used to be picky
about colours, not any more") is `<category>/any`; the budget ("forget the budget", "price
isn't an issue any more", "I don't have a budget now") is `none`.

A lift is read as an acceptance (fine, OK, doesn't bother me, back on the table) or a
restriction denied (not fussy, not important, stopped caring), said of a thing or a
category, with a sign that the mind changed or that no limit stands ("now", "again",
"after all", "any more", "no longer", "any"). "I don't mind grey" alone says too little;
"any colour is fine, except beige" keeps only the exception; a hedge or a one-off keeps
nothing.
"""

from __future__ import annotations

import re

from llm.fact_schema import ANY_KEY, BUDGET_SLOT, NEUTRAL, NO_BUDGET, budget_sentence, slot_key
from llm.offline.judge.clauses import about_someone_else
from llm.offline.judge.judged import Judged
from llm.offline.judge.once import once
from llm.offline.judge.predicates import NOT_BRANDS, PHRASES, TOKEN
from llm.offline.judge.preferences import preference_fact

# The nouns a whole category is named by (the memory screen checks the same ones).
_CATEGORY = {
    "colour": r"colou?rs?",
    "brand": r"brands?|labels?|makers?|designers?",
    "material": r"fabrics?|materials?|textiles?",
    "design": r"fits?|cuts?|styles?|designs?",
}
_FINE = (
    r"(?:fine|ok|okay|alright|all\s+right|good|great|cool|acceptable|welcome|no\s+problem|"
    r"not\s+a\s+problem|not\s+an\s+issue)"
)
_CHANGED = (
    r"(?:now|again|after\s+all|these\s+days|nowadays|any\s?more|no\s+longer|by\s+now|"
    r"from\s+now\s+on|at\s+last)"
)
_MATTER = r"(?:doesn't|does\s+not|don't|do\s+not|no\s+longer|won't)\s+(?:really\s+)?matter"
# A restriction denied: "not fussy about", "stopped caring about", "relaxed about".
_CARE = (
    r"(?:not|no\s+longer|never)\s+(?:really\s+|too\s+|that\s+|very\s+|so\s+)?(?:fussy|bothered|"
    r"picky|particular|precious|fussed|hung\s+up|strict|fixed|set|loyal|tied|attached)\s+"
    r"(?:about|over|with|on|to)"
    r"|(?:stopped|stop|quit)\s+(?:caring|worrying|fretting|being\s+\w+)\s+(?:about|over|with|on)"
    r"|(?:don't|do\s+not)\s+(?:really\s+)?care\s+(?:about|which|what)"
    r"|(?:more|very|quite|pretty)?\s*relaxed\s+(?:about|on|with)"
)
# A category said to weigh nothing now: "brand isn't important to me any more".
_UNIMPORTANT = (
    r"(?:isn't|is\s+not|is\s+no\s+longer|aren't|are\s+not|are\s+no\s+longer|no\s+longer)\s+"
    r"(?:that\s+|very\s+|really\s+|so\s+|as\s+)?(?:important|a\s+priority|a\s+big\s+deal|an\s+issue|"
    r"a\s+concern|a\s+factor|a\s+thing)"
)


def _category_lift(category: str) -> re.Pattern:
    noun = _CATEGORY[category]
    return re.compile(
        rf"\b(?:any|whatever|whichever|every)\s+(?:\w+\s+)?(?:{noun})\b(?:\s+(?:is|are|'s|will\s+do|"
        rf"would\s+be|works?|goes|go))?(?:\s+(?:\w+\s+)?{_FINE})?"
        rf"|\b(?:happy|fine|ok|okay|open)\s+(?:with|to)\s+(?:any|all|every)\s+(?:\w+\s+)?(?:{noun})\b"
        rf"|\b(?:{noun})\s+(?:really\s+)?{_MATTER}"
        # "fabric doesn't bother me any more": the category no longer weighs on the shopper.
        rf"|\b(?:{noun})\s+(?:doesn't|does\s+not|don't|do\s+not)\s+(?:really\s+)?"
        rf"(?:bother|worry|concern)\s+me\b(?=.*\b{_CHANGED}\b)"
        rf"|\b(?:{noun})\s+no\s+longer\s+(?:bother|worry|concern)s?\s+me\b"
        rf"|\b(?:{noun})\s+{_UNIMPORTANT}"
        rf"|\b(?:{noun})(?:-wise)?\W+(?:\w+\s+)?anything\s+goes\b"
        rf"|\b(?:{_CARE})\s+(?:the\s+|which\s+|what\s+|my\s+)?(?:{noun})\b"
        # "I used to be picky about brands, not any more": a fussiness given up.
        rf"|\bused\s+to\s+be\s+(?:\w+\s+)?(?:fussy|picky|particular|strict|precious|loyal)\s+"
        rf"(?:about|over|with|to)\s+(?:the\s+|my\s+)?(?:{noun})\b(?=.*\b(?:not|no\s+longer)\s+"
        rf"(?:any\s?more|now|these\s+days|longer)\b)",
        re.I,
    )


_CATEGORY_LIFTS = {category: _category_lift(category) for category in _CATEGORY}
# What says a category is lifted outright, not just mentioned: "any brand" lifts only with
# a verdict ("is fine", "will do", "works for me") or a changed mind.
_VERDICT = re.compile(
    r"\b(?:not|no\s+longer|never)\s+(?:really\s+|too\s+|that\s+|very\s+|so\s+)?(?:fussy|bothered|"
    r"picky|particular|precious|fussed|strict|loyal)\b|"
    rf"\b{_FINE}\b|\bwill\s+do\b|\b(?:bother|worry|concern)s?\s+me\b|\bworks?\s+for\s+me\b|{_MATTER}|\b(?:{_CARE})\b|{_UNIMPORTANT}|"
    r"\bhappy\s+with\b|\bopen\s+to\b|\bused\s+to\s+be\b|\banything\s+goes\b|\b(?:i'm|i\s+am)\s+easy\b",
    re.I,
)
# An exception keeps the category: "any colour is fine, except beige". "But not any more"
# is no exception; it is the lift itself.
_EXCEPTION = re.compile(
    r"\b(?:but|except|apart\s+from|other\s+than|as\s+long\s+as|so\s+long\s+as|besides|"
    r"anything\s+but|everything\s+but|unless|if)\b(?!\s+(?:not|no\s+longer)\s+(?:any\s?more|now|"
    r"these\s+days)\b)",
    re.I,
)
_BE = r"(?:\s+(?:is|are|seems?|feels?)|'s|'re)"
# A verb of aversion: denied with a changed mind it lifts ("I don't hate pink any more"); a
# verb of liking denied is a dislike, not a lift ("I don't like Vela any more").
_AVERSE = r"(?:mind|hate|dislike|loathe|detest|object\s+to)"
_NAMED_LIFTS = (
    # "yellow's fine now", "polyester is OK after all", "green is now fine by me"
    re.compile(
        rf"^(?P<what>.+?){_BE}\s+(?:totally\s+|perfectly\s+|actually\s+|now\s+|absolutely\s+)*"
        rf"{_FINE}(?:\s+(?:for|by|with)\s+me)?\s+{_CHANGED}\b"
        rf"|^(?P<what2>.+?){_BE}\s+(?:{_CHANGED})\s+(?:totally\s+|perfectly\s+)?{_FINE}\b",
        re.I,
    ),
    # "I don't mind Vela any more", "I no longer mind polyester", "I've nothing against it now"
    re.compile(
        rf"\bi\s+(?:really\s+)?(?:don't|do\s+not)\s+{_AVERSE}\s+(?P<what>.+?)\s+{_CHANGED}\b"
        rf"|\bi\s+no\s+longer\s+{_AVERSE}\s+(?P<what2>.+?)$"
        rf"|\bi(?:'ve|\s+have)?\s+(?:got\s+)?nothing\s+against\s+(?P<what3>.+?)\s+{_CHANGED}\b",
        re.I,
    ),
    # "orange doesn't bother me any more", "beige no longer bothers me"
    re.compile(
        rf"^(?P<what>.+?)\s+(?:doesn't|does\s+not|don't|do\s+not)\s+(?:bother|irritate|annoy|itch|"
        rf"worry)s?\s+me\s+{_CHANGED}\b"
        rf"|^(?P<what2>.+?)\s+no\s+longer\s+(?:bothers?|irritates?|annoys?|itch(?:es)?|worry|"
        rf"worries)\s+me\b",
        re.I,
    ),
    # "I'm not against Vela any more", "I'm no longer against polyester"
    re.compile(
        rf"\b(?:i'm|i\s+am)\s+not\s+(?:\w+\s+)?against\s+(?P<what>.+?)\s+{_CHANGED}\b"
        r"|\b(?:i'm|i\s+am)\s+no\s+longer\s+against\s+(?P<what2>.+?)$",
        re.I,
    ),
    # "I'm no longer avoiding wool", "I've stopped boycotting Vela": an aversion given up.
    re.compile(
        r"\b(?:i'm|i\s+am|i)\s+no\s+longer\s+(?:avoiding|avoid|boycotting|boycott|steering\s+clear\s+of)"
        r"\s+(?P<what>.+?)$"
        r"|\b(?:stopped|quit)\s+(?:avoiding|boycotting|steering\s+clear\s+of)\s+(?P<what2>.+?)$",
        re.I,
    ),
    # "I'm fine with wool now", "I'm happy to wear polyester again"
    re.compile(
        rf"\b(?:i'm|i\s+am)\s+(?:totally\s+|perfectly\s+|more\s+than\s+)?(?:{_FINE}|happy|open)\s+"
        rf"(?:with|to\s+(?:wear|buy|try|go\s+for)|wearing)\s+(?P<what>.+?)\s+{_CHANGED}\b",
        re.I,
    ),
    # "I've got over my thing about beige", "I've made peace with yellow": the change is said.
    re.compile(
        r"\b(?:got|gotten|get|getting|am|i'm)\s+over\s+(?:my\s+)?(?:thing|issue|problem|hang-up|"
        r"hangup|aversion|dislike|hatred)\s+(?:about|with|of|for|against|towards?)\s+(?P<what>.+?)$"
        r"|\b(?:made|make|making)\s+(?:my\s+)?peace\s+with\s+(?P<what2>.+?)$",
        re.I,
    ),
    # "polyester is back on the table", "logos are back in"
    re.compile(
        rf"^(?P<what>.+?){_BE}\s+back\s+(?:on\s+the\s+(?:table|menu|list)|in|in\s+play)\b", re.I
    ),
    # A preference retracted: "forget what I said about beige", "you can show me Vela again".
    re.compile(
        r"\b(?:forget|ignore|scratch|disregard)\s+(?:what|everything|anything)\s+i\s+(?:said|told\s+you)"
        r"\s+(?:earlier\s+|before\s+)?about\s+(?P<what>.+?)$"
        r"|\b(?:you\s+can|feel\s+free\s+to|it's\s+(?:fine|ok|okay)\s+to|go\s+ahead\s+and)\s+"
        r"(?:show|suggest|recommend|offer|include)\s+(?:me\s+)?(?P<what2>.+?)\s+(?:again|now)\b"
        # "include Vela again", "happy to see yellow again": shown once more, not refused.
        r"|^(?!.*\b(?:not|never|no|don't|won't|stop)\b)(?!.*\?\s*$).*?\b(?:show|suggest|recommend|"
        r"offer|include|see|bring\s+back)\s+(?:me\s+)?"
        # A name shown again, not a product seen before ("the Tern jacket again").
        r"(?!(?:the|that|this|those|these|a|an|some|any|it|them|one|your|my)\b)(?P<what4>.+?)\s+again\b"
        # "bring back orange": shown once more, as before the refusal.
        r"|^(?:please\s+)?bring\s+back\s+(?!(?:the|that|this|those|these|it|them)\b)(?P<what5>[^,;.!?]+)"
        # "leather isn't a dealbreaker any more"
        r"|^(?P<what3>.+?)\s+(?:isn't|is\s+not|aren't|are\s+not|is\s+no\s+longer|are\s+no\s+longer)"
        r"\s+(?:a\s+dealbreaker|a\s+deal-breaker|a\s+no(?:-go)?|off[\s-]limits|off\s+the\s+table|"
        r"banned|a\s+problem|an\s+issue)(?:\s+for\s+me)?(?:\s+(?:any\s?more|now))?\b",
        re.I,
    ),
)
_MONEY_NOUN = r"(?:money|price|prices|cost|budget|spending|the\s+price\s+tag)"
_LIMIT = r"(?:budget(?:\s+(?:limit|cap|ceiling))?|(?:spending|price)\s+(?:limit|cap|ceiling))"
_BUDGET_LIFT = re.compile(
    "|".join(
        (
            r"\b(?:forget|forgot|drop(?:ped)?|ditch(?:ed)?|scrap(?:ped)?|scratch|ignore|lose|lost|skip(?:ped)?)"
            rf"\s+(?:about\s+)?(?:the|my)\s+{_LIMIT}\b"
            r"(?!\s+(?:of|is|was)\b)(?![^,;.]*\d)",
            rf"\b(?:{_CARE})\s+(?:the\s+|my\s+)?(?:budget|price|prices|cost|money)\b",
            rf"\b{_MONEY_NOUN}(?:'s|\s+is)\s+no\s+(?:object|issue|problem|concern|worry)\b",
            # "don't worry about my budget any more", "I'm not on a budget now"
            rf"\b(?:don't|do\s+not)\s+worry\s+about\s+(?:the\s+|my\s+)?{_LIMIT}\b(?=.*\b{_CHANGED}\b)",
            rf"\bnot\s+on\s+a\s+(?:tight\s+)?budget\b(?=.*\b{_CHANGED}\b)|\bno\s+longer\s+on\s+a\s+(?:tight\s+)?budget\b",
            rf"\b(?:the\s+|my\s+)?(?:budget|price|cost)\s+{_MATTER}\s+(?:to\s+me\s+)?{_CHANGED}",
            rf"\bno\s+{_LIMIT}\s+(?:for\s+me\s+)?{_CHANGED}",
            r"\b(?:money|budget|cash)(?:'s|\s+is|\s+isn't|\s+is\s+not)\s+(?:not\s+)?"
            rf"(?:tight|an\s+issue|a\s+problem)\s+{_CHANGED}",
            # "price isn't an issue any more", "the budget is no longer a concern"
            rf"\b(?:the\s+|my\s+)?{_MONEY_NOUN}(?:'s|\s+is)?\s+(?:not|no\s+longer|isn't|is\s+not)\s+"
            r"(?:really\s+)?(?:an?\s+)?(?:issue|problem|concern|worry|factor|constraint|thing)\b"
            rf"(?=.*\b{_CHANGED}\b)",
            rf"\b{_MONEY_NOUN}(?:'s|\s+is|\s+are)\s+no\s+longer\s+(?:an?\s+)?(?:issue|problem|concern|"
            r"worry|factor|constraint|thing|tight|limited)\b",
            # "I don't have a budget any more", "I no longer have a budget", "there's no limit now"
            rf"\b(?:don't|do\s+not)\s+(?:have|got)\s+(?:a|any)\s+{_LIMIT}\b(?:\s+\w+)?\s+{_CHANGED}",
            rf"\bno\s+longer\s+(?:have|got)\s+(?:a|any)\s+{_LIMIT}",
            rf"\bthere's\s+no\s+(?:{_LIMIT}|limit)\s+{_CHANGED}",
            r"\bthe\s+sky's\s+the\s+limit\b",
        )
    ),
    re.I,
)
_HEDGE = re.compile(r"\b(?:much|i\s+guess|i\s+suppose|i\s+think|maybe|probably|kind\s+of)\b", re.I)
_SOMEONE_ELSES_PART = re.compile(r"[^,;]+")
_PRONOUN = frozenset(("it", "them", "that", "those", "they"))


def _terms(text: str, at: int) -> list[Judged]:
    """The colours, designs, materials, values and brands a span of text names."""
    tokens = list(TOKEN.finditer(text))
    found: list[Judged] = []
    index = 0
    words = [t.group(0).lower() for t in tokens]
    if (
        len(tokens) > 1
        and tokens[0].group(0)[:1].isupper()
        and any(PHRASES.get((word,), ("",))[0] == "term" for word in words[1:])
    ):
        index = 1  # "Turns out green is okay now": a capital that starts the sentence
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
            if (
                word[:1].isupper()
                and word.lower() not in NOT_BRANDS
                and word.isalpha()
                and not any(re.fullmatch(noun, word, re.I) for noun in _CATEGORY.values())
            ):
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


def _named(match: re.Match) -> str | None:
    return next((value for value in match.groupdict().values() if value), None)


def lift_facts(text: str, at: int) -> list[Judged]:
    """The preferences a sentence lifts, as facts that replace the old ones. A sentence
    said for one purchase lifts nothing."""
    if _HEDGE.search(text) or once(text):
        return []
    # "Shopping with my mum, she's not fussy about colour now": her lift, not the shopper's.
    text = _SOMEONE_ELSES_PART.sub(
        lambda m: " " * len(m.group(0)) if about_someone_else(m.group(0)) else m.group(0), text
    )
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
            what = _named(match) if match else None
            if not what:
                continue
            if what.lower().strip(" .!") in _PRONOUN:
                # "I've made peace with yellow, it's fine now": "it" is the earlier term.
                what = text[: text.lower().find(clause.lower())]
            start = text.find(what)
            facts += _terms(what, at + max(start, 0))
    return facts
