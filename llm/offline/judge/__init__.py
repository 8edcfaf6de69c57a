"""The fact-judge role: durable facts the shopper stated about themselves, nothing else.

Only the shopper's message is read; the assistant's answer never is, so nothing the
assistant said can become a fact about the shopper.

How a message is read:
1. Sentences; one that claims an entitlement or gives an instruction is dropped whole.
2. Clauses, split at commas and conjunctions. A clause is a question, a request ("show me",
   "I'm looking for") or a statement; only statements give sizes, budgets and preferences
   (a question or a search states nothing: "do you have jeans under 50 EUR?" is no budget),
   and only clauses about the shopper count ("my husband wears XL" does not). Once the talk
   is of someone else, a clause that names no one goes on about them ("for my husband:
   he's an XL and hates yellow", "my dad, who loves Vela"). In a list of the shopper's own
   statements every item is theirs, a bare limit or name too ("linen only, and under 60").
3. Preferences by polarity: cues ("love", "not a fan of", "anything but", "without") set
   whether the colours, brands, designs, materials and values after them are liked or
   disliked; a negator flips a liking ("don't really like"); a comparison ends it ("blue
   over black" likes blue and says nothing of black); a predicate after the word resolves
   it ("green is my favourite", "beige washes me out"); a verdict with no object is on what
   was just named ("my sister loves Tern but I'm not keen"). A list after a comma goes on.
   A fit, cut, neck, sleeve or look the lexicon lacks is read as a compound in the
   shopper's words ("a muscle fit": design/muscle-fit).
4. Sizes, budgets and occasions by pattern, within the same clauses; sizes in the shop's
   system (`llm.shopper_words`), budgets in their currency. A size corrected in the next
   breath ("a 32 waist, well 33 now") replaces the one it corrects, in its slot.
Before all this, changes and standing refusals are said plainly (`changes`): a change is
read by its structure for any slot, an old value and a new one ("from ... to", "... for
...", "instead of", "is out ... is in", "was ..., now it's ..."), so "I switched from Vela
to Tern" dislikes Vela and likes Tern and "make that a 41, not 40" states 41. After it, a
sentence said in irony keeps nothing, the part of a sentence for a single purchase keeps
no figure or size ("I never spend over 50, but this time 120" keeps 50), one brand's
sizing is no size, and a lift (`lifts`: "yellow's fine now", "any brand is fine")
replaces what it lifts. Every fact is written in the sentences of `llm.fact_schema`, with
its category and slot.

The package is laid out by what it reads: `clauses` (sentences, clauses and what kind each
is), `predicates` (the lexicon of cues) and `preferences`, `sizes`, `measures` (waist and
inseam), `budget`, `occasion`, `changes` (changes of mind), `restated` (a figure that changed, a
cleft, a look), `lifts` and `once` (one-offs, irony, one brand's sizing).
"""

from __future__ import annotations

import json
import re

from llm.claims import entitlement_or_instruction
from llm.fact_schema import DISLIKE, LIKE, OCCASION_PHRASES
from llm.offline.judge.budget import budget_facts
from llm.offline.judge.changes import names_only, plain_readings
from llm.offline.judge.clauses import (
    Clause,
    Sentence,
    for_someone_else,
    normalise,
    sentences_read,
)
from llm.offline.judge.judged import Judged
from llm.offline.judge.lifts import lift_facts
from llm.offline.judge.measures import MEASURE_FIRST, waist_inseam_facts
from llm.offline.judge.occasion import occasion_facts
from llm.offline.judge.once import (
    ironic,
    once_span,
    one_brands_sizing,
    places_named,
    relative_for_one_brand,
)
from llm.offline.judge.preferences import (
    Pending,
    Referent,
    lowercase_brand_facts,
    preference_fact,
    preference_facts,
    width_facts,
)
from llm.offline.judge.sizes import (
    SHOE_CONTEXT,
    WOMENS,
    SizeCandidate,
    asked_size_facts,
    corrected_size,
    garment_named,
    size_facts,
    sizes_settle,
)
from llm.offline.judge.words import FIRST_PERSON
from llm.offline.payload import last_user_text, payload_read
from llm.offline.replies import Reply, text_reply

__all__ = ["MAX_FACTS", "OCCASION_PHRASES", "Judged", "facts_judge", "judge_reply"]

MAX_FACTS = 8


def judge_reply(messages: list[dict]) -> Reply:
    payload = payload_read(messages)
    query = payload.get("shopper_message")
    if not isinstance(query, str):
        query = last_user_text(messages)
    facts = [fact.as_dict() for fact in facts_judge(query)]
    return text_reply(json.dumps({"facts": facts}, ensure_ascii=False))


def facts_judge(query: str) -> list[Judged]:
    """Return the durable facts in the shopper's message, in the order they were said.

    A slot said twice keeps the later value: "I'm an M, well, an L now" is an L.
    """
    found: dict[str, Judged] = {}
    for sentence in sentences_read(plain_readings(normalise(query or ""))):
        # An entitlement claim or an instruction taints its whole sentence, and irony says
        # the opposite of its words: nothing is kept.
        if entitlement_or_instruction(sentence.text) or ironic(sentence.text):
            continue
        for fact in _standing_facts(sentence):
            found.pop(fact.slot, None)
            found[fact.slot] = fact
    return sorted(found.values(), key=lambda fact: fact.position)[:MAX_FACTS]


def _standing_facts(sentence: Sentence) -> list[Judged]:
    """A sentence's facts, less what holds once or for one brand, with its lifts in place
    of what they lift."""
    facts = _sentence_facts(sentence)
    span = once_span(sentence.text)
    if span is not None:
        # The one purchase's figures go; the usual ones said beside it stay ("I never spend
        # more than 50, but this time I'll go to 120"). A one-off said apart from its
        # figure ("I'd pay 120 for these, but not usually") takes the whole sentence's.
        def figure(f: Judged) -> bool:
            return f.category in ("budget", "size")

        inside = [
            f for f in facts if figure(f) and span[0] <= f.position - sentence.start < span[1]
        ]
        facts = (
            [f for f in facts if f not in inside] if inside else [f for f in facts if not figure(f)]
        )
    brand_from = one_brands_sizing(sentence.text)
    if brand_from is not None:
        # The sizes said before it are the shopper's usual ones; those after, the brand's.
        cut = sentence.start + brand_from
        facts = [f for f in facts if f.category != "size" or f.position < cut]
    if relative_for_one_brand(sentence.text):
        facts = [f for f in facts if not (f.category == "size" and f.value[:1] in "+-")]
    places = places_named(sentence.text)
    if places:
        # "We're moving to Bristol": a town, not a brand.
        facts = [f for f in facts if not (f.category == "brand" and f.slot[6:] in places)]
    lifted = lift_facts(sentence.text, sentence.start)
    slots = {fact.slot for fact in lifted}
    return [f for f in facts if f.slot not in slots] + lifted


# A clause that only takes back what an earlier one said the shopper used to like.
_GIVEN_UP = re.compile(
    r"^(?:(?:but|and|though|so)\s+)?(?:not|no|none of (?:it|that))\s+(?:so\s+much\s*)?(?:any\s?more|"
    r"longer|now|these days|nowadays|$)$|^(?:(?:but|and)\s+)?(?:that's|that is)\s+(?:over|in the past)$",
    re.I,
)


# Sizes that change with the brand or the shop tell no one size: "an M in some brands and
# an L in others".
_SIZE_VARIES = re.compile(
    r"\bin\s+(?:some|certain|a\s+few)\s+(?:brands|shops|stores|places|cuts|styles|labels)\b.*"
    r"\bin\s+(?:others|other\s+\w+)\b|\bvar(?:y|ies)\s+(?:by|with|between|from|across)\s+"
    r"(?:brands?|shops?|stores?|labels?|cuts?)\b",
    re.I,
)
_THEY_ON_ME = re.compile(r"^(?:they|they've|they're|it|it's|it has)\b.*\b(?:me|my)\b", re.I)
_TAKEN_UP = re.compile(
    r"^(?:(?:but|and)\s+)?(?:i\s+(?:really\s+|actually\s+|totally\s+)?do\s+(?:now|these days|"
    r"nowadays)|now\s+i\s+(?:really\s+|actually\s+)?do)$",
    re.I,
)
# An item of a list that refuses: "nothing synthetic", "no prints", "never acrylic".
_REFUSED_ITEM = re.compile(r"^(?:and\s+|but\s+)?(?:no|nothing|never|not|without|avoid)\b", re.I)
_TOO = re.compile(r"\s+(?:too|overly|very|super)\s+\w+", re.I)
_NAMES_ITS_OWN = re.compile(
    r"\b(?:in|for|with)\s+\w+|\b(?:everything|anything)\s+else\b|\b(?:otherwise|elsewhere)\b", re.I
)


def _sentence_facts(sentence: Sentence) -> list[Judged]:
    facts: list[Judged] = []
    polarity: str | None = None
    pending: Pending = []
    sized = False
    referent = Referent()
    sizes: list[SizeCandidate] = []
    carried: str | None = None  # the garment the last sizes were given for
    shoes = bool(SHOE_CONTEXT.search(sentence.text))
    womens = bool(WOMENS.search(sentence.text))
    someone_else = for_someone_else(sentence.text)
    # A list of what the shopper is, likes and avoids: each item is theirs, "and under 60" too.
    own_list = (
        len(sentence.clauses) > 1
        and all(c.kind == "statement" for c in sentence.clauses)
        and any(c.about_shopper for c in sentence.clauses)
        and not someone_else
    )
    refusing = (
        own_list
        and any(
            (refused := _REFUSED_ITEM.match(c.text))
            # What it refuses is named ("no logos") or a quality ("nothing too loud"); "no
            # preference" refuses nothing.
            and (names_only(c.text[refused.end() :]) or _TOO.match(c.text[refused.end() :]))
            for c in sentence.clauses
        )
    )
    if (
        any(clause.kind != "statement" for clause in sentence.clauses)
        and not any(c.supposed or c.past or c.other_person for c in sentence.clauses)
        and not someone_else
    ):
        # The shopper's own measure, asked with: "jeans for my 32 waist", "boots in my
        # size, a 39?".
        whole = Clause(sentence.text, 0, "request", True, False, False, False, False)
        sizes += asked_size_facts(whole, sentence.start, shoes=shoes)
    for clause in sentence.clauses:
        at = sentence.start + clause.start
        if clause.hard:
            polarity = None
        if clause.hedged:
            # A supposition or a hedge states nothing for sure: better a question on the
            # next visit than a wrong fact on every one.
            if not clause.supposed and clause.kind == "statement" and not clause.other_person:
                facts += budget_facts(clause, at, acceptable_only=not clause.about_shopper)
            polarity, pending, sized = None, [], False
            continue
        if (
            _GIVEN_UP.match(clause.text.rstrip(" .!"))
            and referent.term
            and referent.past
            and referent.polarity == LIKE
            and not any(c.other_person for c in sentence.clauses)
        ):
            # "I used to love Zara, not any more": a liking given up.
            facts.append(preference_fact(referent.term, DISLIKE, at))
            continue
        if (
            _TAKEN_UP.match(clause.text.rstrip(" .!"))
            and referent.term
            and referent.past
            and referent.polarity == DISLIKE
        ):
            # "I never used to like green, but I do now": a dislike given up for a liking.
            facts.append(preference_fact(referent.term, LIKE, at))
            continue
        if clause.kind == "statement" and not clause.about_shopper and not clause.other_person:
            # "Up to 400 EUR is fine" is the shopper's budget with no "I" in it.
            facts += budget_facts(clause, at, acceptable_only=True, listed=own_list)
        if clause.other_possessive and clause.kind != "question":
            facts += occasion_facts(clause, at)
        if (
            clause.kind == "statement"
            and referent.term
            and _THEY_ON_ME.match(clause.text)
            and not clause.past
        ):
            # "I was never into florals, but they've grown on me": "they" are the florals.
            facts += preference_facts(clause, at, inherited=None, carried=[], referent=referent)[0]
            continue
        # "Black or white only, cotton, max 40": a bare name in the shopper's list is theirs.
        item = own_list and clause.kind == "statement" and names_only(clause.text)
        if clause.kind == "question" or not (clause.about_shopper or item):
            if clause.kind == "statement" and clause.other_person:
                # "My husband hates orange but I love it": his words name what "it" is.
                preference_facts(clause, at, inherited=None, carried=[], referent=referent)
            polarity, pending, sized = None, [], False
            continue
        facts += occasion_facts(clause, at)
        if clause.kind == "request" and not someone_else and FIRST_PERSON.search(clause.text):
            facts += width_facts(clause, at)
        if clause.kind == "request" or clause.past:
            if clause.past and clause.kind == "statement":
                # What the shopper used to like is not kept, but a later "it" may take it up.
                preference_facts(clause, at, inherited=None, carried=[], referent=referent)
            polarity, pending, sized = None, [], False
            continue
        # "a 42 or 43 in shoes, mostly 43": a bare size goes on with the garment before it;
        # "medium in everything else" names its own.
        bare = sized and not _NAMES_ITS_OWN.search(clause.text)
        correction = corrected_size(clause.text, at, sizes[-1]) if sizes else None
        said = (
            [correction]
            if correction
            else size_facts(
                clause,
                at,
                listed=sized,
                carried=carried if bare else None,
                shoes=shoes,
                womens=womens,
            )
        )
        if someone_else and not FIRST_PERSON.search(clause.text):
            said = []  # "jeans for my son, 28 waist": his measure, not the shopper's
        sized = sized or bool(said)
        carried = garment_named(clause.text) or carried
        sizes += said
        facts += budget_facts(clause, at)
        if item and polarity is None and refusing:
            # "Wool or cashmere, nothing synthetic": beside what the list refuses, a bare
            # name is what the shopper wants.
            polarity = LIKE
        preferences, polarity, pending = preference_facts(
            clause,
            at,
            inherited=polarity,
            carried=[] if clause.hard else pending,
            referent=referent,
        )
        if not any(fact.category == "brand" for fact in preferences):
            preferences += lowercase_brand_facts(clause, at)
        facts += preferences
    if not _SIZE_VARIES.search(sentence.text):
        facts += sizes_settle(sizes)
    # Waist and inseam are named outright, so "32 waist, 34 leg" needs no "I".
    if not facts and not someone_else and all(c.kind == "statement" for c in sentence.clauses):
        for clause in sentence.clauses:
            if MEASURE_FIRST.match(clause.text):
                at = sentence.start + clause.start
                facts += waist_inseam_facts(clause.text, at)
    return facts
