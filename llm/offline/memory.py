"""Questions the shopper asks about themselves, answered from their own facts and visits.

"What size am I?" is answered from the facts in the notes, newest winning; "what did I
look at last time?" from earlier visits. Saying what the shopper told us is answering
them, not narrating the memory machinery (docs/memory-rules.md). When nothing is
remembered, or memory is off, unreachable or the shopper is signed out, the answer says
so plainly; and it always says where the shopper can see and delete what is kept.
"""

from __future__ import annotations

import re

from llm.offline.facts import (
    current_facts,
    date_words,
    fact_for_shopper,
    facts_about,
    facts_by_date,
)
from llm.offline.notes import Fact, Memory
from llm.offline.vocabulary import Vocabulary
from llm.shopper_words import amounts_of_money, numbers_in_digits, size_said

_TOPICS: tuple[tuple[str, re.Pattern], ...] = (
    (
        "forget",
        re.compile(
            r"\b(forget|delete|erase|wipe|remove)\b.{0,40}\b(me|my|everything|all of it|"
            r"what i (said|told)|about me|that i)\b|\bdon't remember (me|that|this)\b"
        ),
    ),
    (
        "visits",
        re.compile(
            r"\b(last time|last visit|previous visit|earlier visit|what did i (look|ask|search|"
            r"see|want|buy)|what was i (looking|after)|remind me what|did i look at|we (talked|"
            r"spoke) about|what have i (looked|asked)|my (past|previous|earlier) (visits?|"
            r"searches|sessions?))\b"
        ),
    ),
    # Before "size": asked for a shoe size, a letter size is no answer.
    (
        "shoe size",
        re.compile(
            r"\bwhat (shoe|sneaker|boot|sandal)s? size (am i|do i (usually )?(wear|take|have))\b"
            r"|\bwhat size (shoes?|sneakers?|boots?|sandals?|feet) (am i|do i (usually )?(wear|take|"
            r"have)|are mine)\b|\b(what'?s|what is|do you (know|remember)|remember|you know) my "
            r"(shoe|foot) sizes?\b|^\s*my (shoe|foot) sizes?\s*\??\s*$"
        ),
    ),
    (
        "size",
        re.compile(
            r"\bwhat (clothing |clothes |letter |usual )?size (am i|do i (usually )?(wear|take))\b"
            r"|\b(what'?s|what is|do you (know|remember)|remember|you know) my (clothing |clothes "
            r"|usual )?sizes?\b"
            r"|^\s*my sizes?\s*\??\s*$"
        ),
    ),
    (
        "colour",
        re.compile(
            r"\b(which|what) colou?rs? (do|did) i (say i )?(dislike|hate|like|love|prefer|avoid|"
            r"not like|don't like|can't stand)\b|\b(do you (know|remember)|what are|what's) my "
            r"(favourite |favorite |preferred )?colou?rs?\b|\bcolou?rs? (do i|i) (dislike|hate|"
            r"don't like|like|love|avoid)\b"
        ),
    ),
    (
        "budget",
        re.compile(
            r"\b(what'?s|what is|do you (know|remember)) my budget\b|\bhow much (do|did) i "
            r"(want|like|say i wanted) to spend\b"
        ),
    ),
    (
        "material",
        re.compile(
            r"\b(which|what) (materials?|fabrics?)\b.*\b(i|me|my)\b"
            r"|\b(do you (know|remember)|what are|what's) my (materials?|fabrics?)\b"
        ),
    ),
    (
        "design",
        re.compile(
            r"\b(which|what) (styles?|designs?|cuts?|fits?)\b.*\bdo i (like|love|prefer|avoid|"
            r"dislike|hate|wear)\b|\b(do you (know|remember)|what's|what is) my (style|fit)\b"
        ),
    ),
    (
        "brand",
        re.compile(
            r"\b(which|what) brands? do i (like|prefer|love)\b|\b(do you (know|remember)|"
            r"what'?s|what is|what are) my (favourite |favorite |preferred )?brands?\b"
        ),
    ),
    (
        "all",
        re.compile(
            r"\bwhat do you (know|remember) about me\b|\bwhat do you (know|remember)\s*\??\s*$"
            r"|\bdo you (know|remember) me\b|\bwhat (have i|did i) (told|tell) you\b"
            r"|\bwhat (info|information|data) do you (have|keep)\b|\bwho am i\b"
            r"|\bwhat do you have on me\b"
        ),
    ),
)

INSPECTOR = (
    "You can see everything that's kept about you, and delete any of it, in the Memory tab "
    "of the inspector."
)
_NOT_REMEMBERED = {
    "stateless": (
        "You're not signed in, so I don't remember anything about you from earlier visits, "
        "and nothing from this chat is kept. Sign in and I'll remember things like your "
        "size and the colours you like for next time."
    ),
    "memory_off": (
        "Memory is switched off in this shop right now, so I don't know anything about you "
        "from earlier visits, and nothing from this chat will be kept. What was kept before "
        "is still listed, with a Delete button for each, in the Memory tab of the inspector."
    ),
    "memory_unavailable": (
        "I can't get to what you've told me before right now, so I can't answer that. "
        "Please ask again in a moment; I can still help you find something meanwhile."
    ),
}
_NOTHING_TO_FORGET = {
    "stateless": "There's nothing to forget: while you're signed out, nothing is kept.",
    "memory_off": (
        "Nothing from this chat is kept while memory is switched off. To delete what was "
        "kept before, open the Memory tab of the inspector."
    ),
    "memory_unavailable": (
        "I can't reach what's kept about you right now. Once it's back, the Memory tab of "
        "the inspector lets you delete any of it."
    ),
}
_TOPIC_WORDS = {
    "shoe size": (("shoe size",), "your shoe size"),
    "size": (("size", "shoe size"), "your size"),
    "colour": ("colour:", "colours you like or dislike"),
    "budget": ("budget", "your budget"),
    "brand": ("brand", "a favourite brand"),
    "material": ("material:", "fabrics you like or avoid"),
    "design": ("design:", "styles you like or avoid"),
}


# A question after what the shopper told or what is kept of them, however it is worded:
# "what did I say my budget was?", "which colours have I said no to?", "what's my tops size
# on file?", "what shoe size have you got for me". The kind comes from the words it names.
_ASKS_WHAT_WAS_SAID = re.compile(
    r"\b(did|have|had) i (say|said|tell|told|give|gave|mention|mentioned|say no)\b"
    r"|\bi (said|told you|gave you|mentioned)\b"
    r"|\b(have|got|kept|stored|saved|remember|know)\b[^?]{0,20}\b(for|about|of|on) me\b"
    r"|\bon (file|record)\b|\bremind me\b"
    r"|\b(what'?s|what is|what are|which is|which are|whats) my\b"
    r"|\b(which|what)\b[^?]{0,30}\b(do|don'?t|did|didn'?t) i\b[^?]{0,12}"
    r"\b(like|love|hate|dislike|avoid|prefer|wear|take)\b"
    r"|\b(have|got|put) me (down )?(as|at|in)\b"
)
# "what size do you have me as?", "what do you have me at for shoes": a size kept.
_HAVE_ME_AS = re.compile(r"\b(have|got|put) me (down )?(as|at|in)\b")
# What the shopper likes or not, asked with no kind: "what do I not like again?"
_ASKS_WHAT_I_LIKE = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|hmm)\W+)?(which|what)\b[^?]{0,20}\b(do|did) i\b( not| never)?\s+"
    r"(like|love|hate|dislike|avoid)\b(?:\W+(?:again|remind me|then|now))*\W*$"
)
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:(?:and|so|ok|okay|hmm)\W+)?(what|which|how|do|did|have|can|remind)\b"
)
_KINDS = (
    ("shoe size", re.compile(r"\b(shoes?|sneakers?|trainers?|boots?|sandals?|feet|foot)\b")),
    ("budget", re.compile(r"\b(budget|spend|price limit|how much)\b")),
    ("colour", re.compile(r"\bcolou?rs?\b")),
    ("brand", re.compile(r"\b(brands?|labels?)\b")),
    ("material", re.compile(r"\b(materials?|fabrics?)\b")),
    ("design", re.compile(r"\b(styles?|fits?|cuts?)\b")),
    ("size", re.compile(r"\bsizes?\b")),
)


# "and colours?", "shoe size?": nothing but the kind, as a question.
_BARE_KIND = re.compile(
    r"^\s*(?:and|what about|how about)?\s*(?:my\s+)?(?:the\s+)?(shoe size|sizes?|colou?rs?|"
    r"budget|brands?|fabrics?|materials?|styles?)\s*\?\s*$"
)


def memory_topic(lowered: str, *, following: bool = False) -> str | None:
    """What a question about the shopper asks for, or None when it is not one.

    `following`: the shopper's last message was such a question, so a bare "and colours?"
    or "shoe size?" asks the same of another kind."""
    for topic, pattern in _TOPICS:
        if pattern.search(lowered):
            return topic
    if _QUESTION.search(lowered) and _ASKS_WHAT_WAS_SAID.search(lowered):
        for topic, kind in _KINDS:
            # A shoe is only the kind when the question is of a size ("boots for the office
            # I said I'd like?" is no memory question).
            sized = "size" in lowered or _HAVE_ME_AS.search(lowered)
            if kind.search(lowered) and (topic != "shoe size" or sized):
                return topic
    if _ASKS_WHAT_I_LIKE.search(lowered):
        return "all"
    if following and _BARE_KIND.search(lowered):
        return next(topic for topic, kind in _KINDS if kind.search(lowered))
    return None


def memory_answer(
    *,
    topic: str,
    mode: str,
    facts: list[Fact],
    visits: list[Memory],
    vocabulary: Vocabulary,
) -> str:
    """Answer a question about the shopper from their facts and visits, or say why not."""
    if mode != "remembering":
        if topic == "forget":
            return _NOTHING_TO_FORGET.get(mode, _NOTHING_TO_FORGET["stateless"])
        said = chat_facts_answer(topic=topic, mode=mode, facts=facts, vocabulary=vocabulary)
        return said or _NOT_REMEMBERED.get(mode, _NOT_REMEMBERED["stateless"])
    if topic == "forget":
        return (
            "I can't delete anything myself, but you can: open the inspector and its Memory "
            "tab lists everything kept about you, each with a Delete button."
        )
    if topic == "visits":
        return _visits_answer(visits)
    if topic in _TOPIC_WORDS:
        prefix, words = _TOPIC_WORDS[topic]
        found = facts_about(facts, vocabulary, prefix=prefix)
        if not found:
            return (
                f"You haven't told me {words} yet. Tell me, and I'll keep it in mind for "
                f"next time. {INSPECTOR}"
            )
        return f"{_told(found, dated=_contradicted(facts, found, vocabulary, prefix))} {INSPECTOR}"
    return _everything_answer(facts, visits, vocabulary)


# Said after what the shopper stated in a chat that reads no memory: it is not kept.
_NOT_KEPT = {
    "stateless": "I won't keep it after you close: you're not signed in.",
    "memory_off": "Memory is switched off, so I won't keep it after you close.",
    "memory_unavailable": "",
}


def chat_facts_answer(
    *, topic: str, mode: str, facts: list[Fact], vocabulary: Vocabulary
) -> str | None:
    """A question about the shopper in a chat that reads no memory, answered from what they
    said earlier in it (the notes' "this chat" facts); None when they said nothing of it."""
    # Signed out, a stored fact (whatever the notes claim) is never the shopper's to hear.
    facts = [fact for fact in facts if fact.this_chat]
    if topic in ("forget", "visits") or not facts:
        return None
    if topic in _TOPIC_WORDS:
        found = facts_about(facts, vocabulary, prefix=_TOPIC_WORDS[topic][0])
    else:
        found = list(reversed(current_facts(facts, vocabulary)))
    if not found:
        return None
    parts = [fact_for_shopper(fact.text) for fact in found]
    said = f"You said {_and(parts, joiner=' and that ')} in this chat."
    return f"{said} {_NOT_KEPT.get(mode, _NOT_KEPT['stateless'])}".strip()


def _told(found: list[Fact], *, dated: bool) -> str:
    """ "You told me you wear size M (on 1 May 2026) and that you dislike yellow."."""
    parts = []
    for fact in found:
        part = fact_for_shopper(fact.text)
        said = size_said(fact.text, footwear=True) if "shoe" in fact.text.lower() else None
        if said is not None and said.sentence != f"EU {said.shop}":
            part += f" (EU {said.shop} here)"
        if dated and fact.date:
            part += f" (on {date_words(fact.date)})"
        parts.append(part)
    return f"You told me {_and(parts, joiner=' and that ')}."


def _contradicted(
    facts: list[Fact], found: list[Fact], vocabulary: Vocabulary, prefix: str | tuple[str, ...]
) -> bool:
    """Whether an older fact said otherwise: then the date says which one counts."""
    on_topic = [fact for fact in facts_by_date(facts) if fact not in found]
    return bool(facts_about(on_topic, vocabulary, prefix=prefix)) if on_topic else False


def _everything_answer(facts: list[Fact], visits: list[Memory], vocabulary: Vocabulary) -> str:
    kept = current_facts(facts, vocabulary)
    if not kept and not visits:
        return (
            "I don't know anything about you yet: you haven't told me your size, colours, "
            "budget or favourite brands, and there's no earlier visit. Tell me what you like "
            "and I'll keep it in mind for next time."
        )
    lines = []
    if kept:
        lines.append("Here's what you've told me:")
        lines += [
            f"- {fact_for_shopper(fact.text)}"
            + (f" ({date_words(fact.date)})" if fact.date else "")
            for fact in reversed(kept)
        ]
    told = _visit_to_tell(visits)
    if told is not None:
        when = f"On {date_words(told.date)}" if told.date else "Earlier"
        lines.append(f"{when}: {_visit_text(told.text)}")
    lines.append(INSPECTOR)
    return "\n".join(lines)


_ASKED = re.compile(r"^\s*Shopper asked:\s*(?P<query>[^;]*)", re.IGNORECASE)


def _visit_to_tell(visits: list[Memory]) -> Memory | None:
    """The newest visit worth telling: a visit's summary says what it was about, where one
    exchange of it may be no more than an earlier "what size am I?" and its answer."""
    summaries = [visit for visit in visits if visit.summary]
    if summaries:
        return max(summaries, key=lambda visit: visit.date)
    shopping = [visit for visit in visits if not _about_the_shopper(visit.text)]
    return max(shopping, key=lambda visit: visit.date) if shopping else None


def _about_the_shopper(text: str) -> bool:
    asked = _ASKED.match(text)
    return bool(asked) and memory_topic(asked["query"].lower().replace("\u2019", "'")) is not None


def _visits_answer(visits: list[Memory]) -> str:
    visits = [visit for visit in visits if not _about_the_shopper(visit.text)]
    if not visits:
        return "I can't find anything from an earlier visit yet. What are you looking for today?"
    lines = ["Here's what came up from your earlier visits:"]
    for visit in sorted(visits, key=lambda v: v.date, reverse=True)[:5]:
        when = date_words(visit.date) if visit.date else "earlier"
        lines.append(f"- {when}: {_visit_text(visit.text)}")
    lines.append(
        "Prices and stock may have changed since: want me to check any of these now? " + INSPECTOR
    )
    return "\n".join(lines)


# A visit summary ends with bookkeeping for the assistant (occasion, outcome, follow-ups);
# the shopper needs only what happened.
_VISIT_BOOKKEEPING = re.compile(
    r"\s+(?:Occasion:|Found what they wanted\.|Did not find what they wanted\.|Follow-ups:).*$",
    re.DOTALL,
)
_THIRD_PERSON = (
    (re.compile(r"\bThe shopper's\b", re.IGNORECASE), "your"),
    (re.compile(r"\bThe shopper\b", re.IGNORECASE), "you"),
    (re.compile(r"\bThey\b"), "you"),
    (re.compile(r"\bthey\b"), "you"),
    (re.compile(r"\btheir\b", re.IGNORECASE), "your"),
)


# A remembered price or stock figure is a lead, never a fact to state (the grounding check
# drops it): a past visit is told without them.
_REMEMBERED_STOCK = re.compile(
    r"(?:;\s*|,\s*|\b)(?:sizes in stock|in stock in sizes?)\b[^;.)]*|\b\d+ left\b", re.I
)
_MONEY_LEAD = re.compile(
    r"\s*\b(?:under|below|up to|less than|within|at most|around|about|at|for)\s*$", re.I
)
_LEFT_OVER = (
    (re.compile(r"\(\s*[,;]?\s*\)"), ""),
    (re.compile(r"\(\s*[,;]\s*"), "("),
    (re.compile(r"\s*[,;]\s*\)"), ")"),
    (re.compile(r"\s+(?:at|for)\s*(?=[;,.)]|$)"), ""),
    (re.compile(r"\s*;\s*(?=[;.,]|$)"), ""),
    (re.compile(r"\s+(?=[.,;])|(?<=\s)\s+"), ""),
)


def _without_figures(text: str) -> str:
    digits = numbers_in_digits(text)
    amounts = amounts_of_money(digits)
    # Number words are read as digits only where money must be cut out of them.
    text = digits if amounts else text
    for money in reversed(amounts):
        lead = _MONEY_LEAD.search(text[: money.start])
        text = text[: lead.start() if lead else money.start] + text[money.end :]
    text = _REMEMBERED_STOCK.sub("", text)
    for pattern, replacement in _LEFT_OVER:
        text = pattern.sub(replacement, text)
    return text.strip()


def _visit_text(text: str) -> str:
    """An earlier visit as said to the shopper: in the second person, without bookkeeping,
    remembered prices or stock."""
    # A remembered product is a lead, never a link (seed 000, rule 4): keep only its words.
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = _without_figures(_VISIT_BOOKKEEPING.sub("", text.strip()))
    for pattern, replacement in _THIRD_PERSON:
        text = pattern.sub(replacement, text)
    # Sentences that now open with "you" start with a capital again.
    return re.sub(r"(^|[.!?]\s+)you\b", lambda m: m.group(1) + "You", text)


def _and(parts: list[str], *, joiner: str = " and ") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + joiner + parts[-1]
