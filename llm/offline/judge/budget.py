"""Budgets: a figure the shopper will spend up to, or a tight budget in words."""

from __future__ import annotations

import math
import re

from llm.fact_schema import BUDGET_SLOT, TIGHT_BUDGET, budget_sentence
from llm.offline.judge.clauses import Clause
from llm.offline.judge.judged import Judged
from llm.shopper_words import CURRENCY_WORDS, SHOP_CURRENCY, currency_of

# Words around a figure that leave it the figure: "nothing over about 60", "say 80 or so".
_ROUGHLY = (
    r"(?:(?:about|around|roughly|approximately|approx\.?|say|like|maybe|circa|some|just|ish)\s+)*"
)
# Every sign and word of a currency (`llm.shopper_words`), either side of the figure.
_CURRENCY = "|".join(
    sorted(
        (
            re.escape(w) + ("" if w in "€£$" else r"\b")
            for ws in CURRENCY_WORDS.values()
            for w in ws
        ),
        key=len,
        reverse=True,
    )
)
_AMOUNT = (
    _ROUGHLY
    + rf"(?P<cur1>{_CURRENCY})?\s*(?P<amount>\d{{1,5}}(?:[.,]\d{{1,2}})?)\s*(?P<cur2>{_CURRENCY})?"
)
_ACCEPTABLE = (
    r"\s*(?:(?:is|are|would\s+be|'s|works?|would\s+work|seems?)\s+)?(?:fine|ok|okay|good|great|"
    r"alright|acceptable|reasonable|ideal|ideally|preferably|perfect|my\s+limit|the\s+max|"
    r"for\s+me|if\s+possible|by\s+me)\b"
)
_EUROS = r"(?=(?:€|eur\b)|\d+\s*(?:€|eur\b|euros?\b))"
# A figure with any currency beside it: "£60 max" is a limit whatever the money.
_IN_MONEY = rf"(?=(?:{_CURRENCY})\s*\d|\d+(?:[.,]\d{{1,2}})?\s*(?:{_CURRENCY}))"
# Budgets said by the shopper about themselves (the clause is theirs).
_BUDGET_STATED = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"\bbudget\b[^\d€.?!]{0,30}?" + _AMOUNT,
        r"\b(?:spend|spending|pay|paying|afford|go|going|stretch|splash\s+out)\b(?:\s+(?:more|much|over|above|beyond|past|up|to|than|around|about|roughly|max|maximum|at|most|maybe|like|between))*\s+" + _AMOUNT,
        r"\b(?:limit|max|maximum|ceiling|price\s+limit|upper\s+limit|spending\s+limit)\s+(?:is|would\s+be|'s|of|at)\s+(?:about\s+|around\s+)?" + _AMOUNT,
        r"\b(?:keep(?:ing)?|stay(?:ing)?|stick(?:ing)?)\s+(?:it\s+|things\s+)?(?:under|below|within|around)\s+" + _AMOUNT,
        r"\b(?:nothing|not)\s+(?:over|above|more\s+than)\s+" + _AMOUNT,
        r"\b(?:no\s+more\s+than|at\s+most|max(?:imum)?)\s+" + _AMOUNT + r"\s+for\s+me",
        _AMOUNT + r"\s*(?:max|tops|at\s+most)\b",
        _AMOUNT + r"\s+(?:to\s+spend|to\s+play\s+with)\b",
        r"\b(?:anything|everything)\s+(?:above|over|more\s+than)\s+" + _AMOUNT
        + r"\s*(?:is|'s)\s+too\s+(?:much|expensive|pricey|dear)",
    )
)  # fmt: skip
# Budgets that need no "I": "up to 400 EUR is fine", "ideally under 75 euros", "€60 tops".
_BUDGET_ACCEPTABLE = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"(?:\b(?:up\s+to|under|below|less\s+than|max(?:imum)?|around|about|roughly)\s+|" + _EUROS + r")" + _AMOUNT + _ACCEPTABLE,
        r"\b(?:ideally|preferably)\s+(?:up\s+to|under|below|less\s+than|max(?:imum)?|around|no\s+more\s+than|not\s+(?:more\s+than|over|above))\s+" + _AMOUNT,
        _IN_MONEY + _AMOUNT + r"\s*(?:max|tops|at\s+most)\b",
        r"\b(?:max(?:imum)?|top)\s+spend\s+(?:is\s+|of\s+)?" + _AMOUNT,
        _AMOUNT + r"\s*(?:is|'s|would\s+be)\s+(?:my|the|our)\s+(?:absolute\s+)?(?:limit|max|maximum|ceiling|budget|upper\s+limit|top|most)",
    )
)  # fmt: skip
# A bare limit as one item of the shopper's own list: "linen only, and under 60", "prefer
# navy, max 70 euros". Alone, "under 60" may be this search's filter; in a list of what the
# shopper is, likes and avoids, it is one more of those.
_BUDGET_ITEMS = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"^(?:(?:and|but|also|plus|so|oh)\s+)*(?:ideally\s+|preferably\s+|always\s+|usually\s+)?"
        r"(?:(?:keep(?:ing)?|stay(?:ing)?)\s+(?:it\s+|things\s+|everything\s+)?)?"
        r"(?:under|below|max(?:imum)?|up\s+to|no\s+more\s+than|not\s+(?:over|above|more\s+than)|"
        r"nothing\s+(?:over|above|more\s+than)|less\s+than|at\s+most|within)\s+"
        + _AMOUNT
        + r"(?:\s*(?:max|tops|at\s+most|or\s+so|or\s+less|ish))?[\s.!]*$",
        r"^(?:(?:and|but|also|plus)\s+)*" + _AMOUNT + r"\s*(?:max|tops|at\s+most)[\s.!]*$",
    )
)
# A tight budget in words: money said to be short, the shopper said to be short of it, or
# spending said to be held down. The subjects and states are parts, so "cash is a bit low",
# "funds are limited" and "money's tight" are one reading.
_MONEY = r"(?:money|cash|funds|finances|budget|budgets|wallet|things|my\s+bank\s+account)"
_SHORT = r"(?:tight|limited|low|short|thin|stretched|strained|small|modest|lean|squeezed)"
_DEGREE = (
    r"(?:(?:a\s+bit|a\s+little|bit|pretty|quite|really|very|so|super|rather|kinda|"
    r"seriously|extremely|incredibly|fairly|ridiculously)\s+)*"
)
_TIGHT = re.compile(
    r"\b(?:tight|limited|small|low|strict|shoestring|student|modest|lean|sensible)\s+budget\b|"
    r"\bon\s+a\s+(?:\w+\s+)?budget\b|\bon\s+a\s+shoestring\b|"
    r"\b" + _MONEY + r"(?:'s|'re|\s+(?:is|are|'s|has\s+been|have\s+been|is\s+running|are\s+running|"
    r"running))\s+" + _DEGREE + _SHORT + r"\b|"
    r"\b(?:tight|short|strapped)\s+(?:financially|for\s+(?:cash|money|funds))\b|"
    r"\b(?:low|short)\s+on\s+(?:cash|money|funds)\b|"
    r"\b(?:i'm|im|i\s+am)\s+" + _DEGREE + r"(?:skint|broke|hard\s+up|strapped|poor|cash-strapped|"
    r"penniless|on\s+a\s+budget)\b|\bnot\s+made\s+of\s+money\b|"
    r"\b(?:pinching|counting)\s+(?:every\s+|the\s+|my\s+)?(?:penny|pennies|cent|cents|euro|pence)\b|"
    r"\bpenny[-\s]pinching\b|\btightening\s+(?:my|our)\s+belts?\b|"
    r"\bwatching\s+(?:my|our|the)\s+(?:spending|money|pennies|wallet|budget|finances)\b|"
    r"\b(?:keep|keeping)\s+(?:costs?|the\s+costs?|spending|it|things|the\s+price)\s+(?:down|low|cheap)\b|"
    r"\b(?:spend|spending)\s+less\b|\bcareful\s+with\s+(?:money|cash|my\s+money|spending)\b|"
    r"\b(?:cutting|cut)\s+back\s+on\s+(?:spending|clothes|shopping)\b|"
    r"\b(?:can't|cannot|can\s+not|couldn't)\s+(?:really\s+)?(?:spend\s+(?:much|a\s+lot|loads)|"
    r"splash\s+out|splurge|afford\s+(?:much|a\s+lot|anything\s+(?:fancy|expensive|pricey|dear)))\b|"
    r"\b(?:trying|try|want|need|have)\s+(?:not\s+to|to\s+not)\s+spend\s+(?:too\s+much|much|a\s+lot|"
    r"loads)\b|\bpoor\s+(?:uni\s+|university\s+|college\s+)?student\b|"
    r"\bsaving\s+(?:money|up|hard)\b|\bthe\s+cheaper\s+the\s+better\b|"
    r"\bnothing\s+(?:too\s+)?(?:expensive|pricey|fancy|dear|spendy|costly)\b",
    re.I,
)
# "Money's not tight", "I'm not on a budget": a tight budget denied.
_NOT_TIGHT = re.compile(
    r"\b(?:not|isn't|aren't|no\s+longer|never)\s+(?:\w+\s+)?(?:tight|limited|broke|skint|"
    r"on\s+a\s+budget|hard\s+up|strapped|an?\s+(?:issue|problem))\b|\bno\s+budget\b",
    re.I,
)
# With no "I", only money itself is the subject: "money's tight this month".
_MONEY_SUBJECT = re.compile(r"^(?:(?:and|but|so|also|plus|honestly|well)\s+)*" + _MONEY, re.I)
_NO_BUDGET = re.compile(
    r"\b(?:money|price|budget)\s+(?:is|isn't)\s+(?:no|not an?)\s+(?:object|issue|problem)\b", re.I
)


def budget_facts(
    clause: Clause, at: int, *, acceptable_only: bool = False, listed: bool = False
) -> list[Judged]:
    """The budget a clause states. `acceptable_only`: the clause has no "I", so only a
    figure said to be acceptable counts; `listed`: the clause is an item of the shopper's
    own list of statements, so a bare limit counts too."""
    text = clause.text
    if _NO_BUDGET.search(text):
        return []
    patterns = _BUDGET_ACCEPTABLE if acceptable_only else _BUDGET_ACCEPTABLE + _BUDGET_STATED
    if listed:
        patterns = (*patterns, *_BUDGET_ITEMS)
    for pattern in patterns:
        match = pattern.search(text)
        if not match:
            continue
        sign = match.group("cur1") or match.group("cur2")
        # The currency as said (no conversion: a budget is kept in the shopper's money).
        code = (currency_of(sign) if sign else None) or SHOP_CURRENCY
        amount = float(match.group("amount").replace(",", "."))
        upper = re.match(r"\s*(?:-|\u2013|to)\s*(\d{1,5})\b", text[match.end("amount") :])
        if upper:
            amount = float(upper.group(1))  # "50-80": the top of the range
        between = re.search(
            r"\bbetween\s+\d{1,5}\s*(?:€|eur|euros?)?\s+and\s+(\d{1,5})", text, re.I
        )
        if between:
            amount = float(between.group(1))
        if 1 <= amount <= 100_000:
            value = f"{math.floor(amount + 0.5)} {code}"
            return [
                Judged(at + match.start(), budget_sentence(value), "budget", BUDGET_SLOT, value)
            ]
    tight = _TIGHT.search(text)
    if (
        not tight
        or clause.past
        or clause.supposed
        or _NOT_TIGHT.search(text)
        or (acceptable_only and not _MONEY_SUBJECT.match(text))
    ):
        return []
    value = TIGHT_BUDGET
    return [Judged(at + tight.start(), budget_sentence(value), "budget", BUDGET_SLOT, value)]
