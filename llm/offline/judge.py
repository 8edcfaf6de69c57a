"""The fact-judge role: durable facts the shopper stated about themselves, nothing else.

Only the shopper's message is read; the assistant's answer never is, so nothing the
assistant said can become a fact about the shopper.

How a message is read:
1. Sentences; one that claims an entitlement or gives an instruction is dropped whole.
2. Clauses, split at commas and conjunctions. A clause is a question, a request ("show me",
   "I'm looking for") or a statement; only statements give sizes, budgets and preferences
   (a question or a search states nothing: "do you have jeans under 50 EUR?" is no budget),
   and only clauses about the shopper count ("my husband wears XL" does not).
3. Preferences by polarity: cues ("love", "not a fan of", "anything but", "without") set
   whether the colours, brands, designs, materials and values after them are liked or
   disliked; a negator flips a liking ("don't really like"); a comparison ends it ("blue
   over black" likes blue and says nothing of black); a predicate after the word resolves
   it ("green is my favourite", "beige washes me out"). A list after a comma goes on.
4. Sizes, budgets and occasions by pattern, within the same clauses.
Every fact is written in the sentences of `llm.fact_schema`, with its category and slot.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

from llm.fact_schema import (
    BUDGET_SLOT,
    COLOUR_TERMS,
    DESIGN_TERMS,
    DISLIKE,
    GARMENT_SLOTS,
    LIKE,
    MATERIAL_TERMS,
    OCCASION_PHRASES,
    TIGHT_BUDGET,
    VALUE_TERMS,
    budget_sentence,
    occasion_sentence,
    preference_sentence,
    relative_size_sentence,
    size_sentence,
    slot_key,
)
from llm.offline.payload import last_user_text, payload_read
from llm.offline.replies import Reply, text_reply

MAX_FACTS = 8


@dataclass(frozen=True)
class Judged:
    """One fact: where it was said (for ordering), its sentence, category, slot and value."""

    position: int
    fact: str
    category: str
    slot: str
    value: str

    def as_dict(self) -> dict[str, str]:
        return {
            "fact": self.fact,
            "category": self.category,
            "slot": self.slot,
            "value": self.value,
        }


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
    for sentence in _sentences(_normalise(query or "")):
        if not _TAINTED.search(sentence.text):
            for fact in _sentence_facts(sentence):
                found.pop(fact.slot, None)
                found[fact.slot] = fact
    return sorted(found.values(), key=lambda fact: fact.position)[:MAX_FACTS]


# --- Sentences and clauses ---------------------------------------------------------------

# An entitlement claim or an instruction taints its whole sentence: nothing in it is kept.
_TAINTED = re.compile(
    r"\d+\s*(?:%|percent)\s*off\b|\b(?:discount|promo|voucher|coupon)(?:s|\s+codes?)?\b|"
    r"\bfree\s+(?:shipping|delivery|returns?|gifts?|items?|stuff|upgrades?)\b|\bfor free\b|"
    r"\b(?:entitled|eligible|promised|refund|refunds|cashback|price match|staff price|vip)\b|"
    r"\bowe me\b|\bfree for me\b|\bis free\b|"
    r"\b(?:ignore|disregard|forget)\b.{0,30}\b(?:rules?|instructions?|prompt|previous|"
    r"above|everything)\b|\bfrom now on\b|\b(?:you|the assistant)\s+(?:must|should|will|shall)\b|"
    r"\bsystem prompt\b|\bpretend\b|\byour (?:rules|instructions)\b|"
    r"\b(?:always|never)\s+(?:give|offer|apply|tell|say|answer|recommend|show|send)\s+me\b",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[\u2014\u2013]\s+|\s+-\s+")
_CLAUSE_SEP = re.compile(
    r"\s*(?:,(?!\d)|;|"
    r"\b(?<!anything )(?<!everything )(?<!nothing )(?<!all )but\b|\bthough\b|\balthough\b|"
    r"\bhowever\b|\bwhereas\b|\bwhile\b|\bbecause\b|\bcause\b|"
    r"\band\b(?=\s+(?:i|i'm|im|i've|i'd|i'll|my|me|we|we're|show|find|do|can|could|please|what|"
    r"which|is|are|have|any|also|need|prefer|love|like|hate|budget|size)\b)|"
    r"\bso\b(?=\s+(?:i|i'm|im|i've|my|please|show|can|could|do|what)\b))\s*",
    re.I,
)
_HARD_SEPS = ("but", "though", "although", "however", "whereas", "while", "because", "cause")
_QUESTION_START = re.compile(
    r"^(?:(?:so|and|also|ok|okay|hi|hey|hello|well|oh|um|btw)\b[\s,]*)*"
    r"(?:(?:do|does|did|can|could|would|will|is|are|was|were|have|has|should|shall|may|might|"
    r"isn't|aren't|don't|wouldn't|won't)\s+(?:you|i|we|it|this|that|these|those|they|there|he|she|"
    r"any|the|a|an|my|your|u)|what|what's|whats|which|where|when|why|who|how|any|got)(?![\w'])",
    re.I,
)
_REQUEST = re.compile(
    r"^(?:please|pls)\b(?![\s,]+(?:no|not|never|don't|nothing|avoid|skip|only|stay away|"
    r"keep away)\b)|\b(?:show|find|get|give|send|bring)\s+(?:me|us)\b|\brecommend|\bsuggest|"
    r"\b(?:looking|searching|search|shopping around)\s+for\b|\b(?:to|'ll)\s+look\s+for\b|"
    r"(?:\b(?:i|we)\s+(?:really\s+)?(?:need|want|would like|am after)|\b(?:i'd|we'd)\s+(?:like|love)|"
    r"\b(?:i'm|we're)\s+after)\b(?!\s+to\s+(?:spend|stay|keep|pay|go))|"
    r"\b(?:need|want)\s+(?:a|an|some|new|the|something|anything)\b|"
    r"\bdo you (?:have|sell|carry|stock)\b|\bhave you got\b|\bgot any\b|"
    r"\b(?:can|could|may)\s+(?:i|we|you)\b|\bwould you\b|\bwill you\b|\blet me see\b|"
    r"\bi'll (?:take|have|get|go with|go for)\b|\bhelp me\b|\bin stock\b|\bavailable\b|"
    r"\b(?:what|how) about\b|"
    r"\bwondering\b|\bwonder if\b|\bdo you know\b|\bany chance\b",
    re.I,
)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|myself|we|we're|our|us|let's)\b", re.I
)
_PEOPLE = (
    r"(?:partner|husband|wife|boyfriend|girlfriend|son|daughter|kid|kids|child|children|mum|mom|"
    r"mother|dad|father|brother|sister|friend|friends|colleague|boss|baby|niece|nephew|grandma|"
    r"grandpa|aunt|uncle|fiance|fiancee)"
)
# A clause whose subject is someone else says nothing about the shopper...
_OTHER_PERSON = re.compile(
    r"^(?:(?:and|but|so|also|plus|while)\s+)?(?:(?:my|our)\s+(?:\w+\s+)?" + _PEOPLE + r"(?![\w'])|"
    r"he|she|they|he's|she's|they're|his|her|their)\b",
    re.I,
)
# ...though the shopper may well go to their occasion ("my best friend's wedding").
_OTHER_POSSESSIVE = re.compile(
    r"^(?:(?:and|but|so|also|plus|while)\s+)?(?:my|our)\s+(?:\w+\s+)?" + _PEOPLE + r"'s\b", re.I
)
_PAST = re.compile(
    r"\b(?:used to|back then|as a kid|as a child|when i was|i was|i wore|years ago|"
    r"last (?:year|summer|winter|time) i|got back|came back|returned from|back from)\b",
    re.I,
)
# A clause that starts with one of these is the shopper talking with "I" left out
# ("not a fan of orange", "prefer Adidas", "budget about 100 euros").
_ELIDED_I = re.compile(
    r"^(?:(?:and|also|plus|so|oh|honestly|personally|definitely|really|please)\s+)*"
    r"(?:not|no|never|love|loves|like|prefer|hate|can't|cannot|big|huge|only|always|mostly|"
    r"usually|anything but|everything but|nothing|budget|allergic|sick of|tired of|done with|"
    r"strictly|going|heading|off to|team|shoe size|generally|typically|normally|pure|could|would|"
    r"can|might|looking to|planning)\b",
    re.I,
)
# In a sentence that asks for nothing, these name the shopper's own measures without an "I":
# "shoe size 43", "38 in shoes, M in tops", "Budget: 150".
_GARMENT_NOUNS = (
    r"(?:tops|t-shirts|tees|shirts|blouses|jumpers|sweaters|knitwear|knits|hoodies|shoes|sneakers|"
    r"trainers|boots|sandals|jackets|coats|dresses|jeans|trousers|pants|chinos|skirts|shorts|"
    r"bottoms)"
)
_FACT_NOUN = re.compile(
    r"\b(?:shoe size|size\s+(?:\d{1,2}|xxs|xs|s|m|l|xl|xxl)|budget|waist|inseam|w\d{2}|"
    r"\d{2}\s*(?:leg|length))\b|"
    r"^" + _GARMENT_NOUNS + r"\s*:?\s*(?:always\s+|usually\s+|normally\s+)?"
    r"(?:\d{1,2}|xxs|xs|s|m|l|xl|xxl)\b|"
    r"^(?:(?:and|also|plus|generally|usually|normally|mostly|always)\s+)?(?:an?\s+)?"
    r"(?:\d{1,2}|xxs|xs|s|m|l|xl|xxl|small|medium|large)\s+(?:in|for)\s+(?:my\s+|most\s+)?"
    + _GARMENT_NOUNS
    + r"\b",
    re.I,
)


_PRODUCT_SUBJECT = re.compile(r"^(?:this|that|these|those|the|it|it's|its)\b", re.I)
_BARE_SIZE = re.compile(r"^(?:size\s+)?(?:XXS|XS|S|M|L|XL|XXL|XXXL)$")
_PLEASE = re.compile(r"\bplease\b", re.I)
_PREFERENCE_WORD = re.compile(r"\b(?:only|no|not|never|pure|nothing|without|avoid)\b|100%", re.I)


@dataclass
class Clause:
    text: str
    start: int
    kind: str  # "statement", "request" or "question"
    about_shopper: bool
    other_person: bool
    other_possessive: bool
    past: bool
    hard: bool  # begins after "but", "though"...: a list does not go on across it


@dataclass
class Sentence:
    text: str
    start: int
    clauses: list[Clause] = field(default_factory=list)


def _normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ")
    # "vintage-looking", "sporty-style": the word before is the term.
    text = re.sub(r"(?<=\w)-(?=(?:looking|style|inspired|ish)\b)", " ", text, flags=re.I)
    text = re.sub(r"\b(budget|size)-wise\b,?", r"\1", text, flags=re.I)  # "budget-wise, 60"
    return re.sub(r"(?<=\w)-and-(?=\w)", " and ", text)  # "black-and-white"


def _sentences(text: str) -> list[Sentence]:
    sentences = []
    position = 0
    for part in _SENTENCE_END.split(text):
        start = text.find(part, position) if part else position
        position = start + len(part)
        if part.strip():
            sentence = Sentence(text=part.strip(), start=start)
            sentence.clauses = _clauses(sentence.text)
            sentences.append(sentence)
    return sentences


def _clauses(sentence: str) -> list[Clause]:
    pieces: list[tuple[str, int, bool]] = []
    last, hard = 0, False
    for match in _CLAUSE_SEP.finditer(sentence):
        pieces.append((sentence[last : match.start()], last, hard))
        hard = match.group(0).strip().lower() in _HARD_SEPS
        last = match.end()
    pieces.append((sentence[last:], last, hard))
    question_sentence = sentence.rstrip().endswith("?")
    first_person = any(
        _FIRST_PERSON.search(text) and not _OTHER_PERSON.search(text.strip())
        for text, _, _ in pieces
    )
    kept = [(text.strip(), start, hard) for text, start, hard in pieces if text.strip()]
    kinds = []
    for index, (text, _, _) in enumerate(kept):
        if (question_sentence and index == len(kept) - 1) or _QUESTION_START.search(text):
            kinds.append("question")
        elif _REQUEST.search(text) or (
            # "XL please" asks; "cotton only please" states a preference.
            not first_person and _PLEASE.search(text) and not _PREFERENCE_WORD.search(text)
        ):
            kinds.append("request")
        else:
            kinds.append("statement")
    asks = any(
        kind != "statement" and not _PLEASE.fullmatch(text)
        for kind, (text, _, _) in zip(kinds, kept, strict=True)
    )
    clauses = []
    # "XS, love pink, vegan only": a bare size among the shopper's own words is theirs.
    elided = not asks and any(_ELIDED_I.search(text) for text, _, _ in kept)
    for (text, start, hard), kind in zip(kept, kinds, strict=True):
        other = bool(_OTHER_PERSON.search(text))
        possessive = bool(_OTHER_POSSESSIVE.search(text))
        if _PRODUCT_SUBJECT.match(text) and not _FIRST_PERSON.search(text):
            # "This shirt is 100% cotton" describes a product, not the shopper.
            clauses.append(Clause(text, start, kind, False, False, False, False, hard))
            continue
        about = (
            not other
            and not possessive
            and bool(
                _FIRST_PERSON.search(text)
                or first_person
                or _ELIDED_I.search(text)
                or (not asks and (_FACT_NOUN.search(text) or _PREFERENCE_WORD.search(text)))
                or (elided and _BARE_SIZE.match(text))
                or (not asks and _BRAND_SUBJECT.match(text))
                or (not asks and _VERDICT.search(text))
            )
        )
        past = bool(_PAST.search(text))
        clauses.append(Clause(text, start, kind, about, other, possessive, past, hard))
    return clauses


def _sentence_facts(sentence: Sentence) -> list[Judged]:
    facts: list[Judged] = []
    polarity: str | None = None
    pending: Pending = []
    sized = False
    for clause in sentence.clauses:
        at = sentence.start + clause.start
        if clause.hard:
            polarity = None
        if clause.kind == "statement" and not clause.about_shopper and not clause.other_person:
            # "Up to 400 EUR is fine" is the shopper's budget with no "I" in it.
            facts += _budget_facts(clause, at, acceptable_only=True)
        if clause.other_possessive and clause.kind != "question":
            facts += _occasion_facts(clause, at)
        if clause.kind == "question" or not clause.about_shopper:
            polarity, pending, sized = None, [], False
            continue
        facts += _occasion_facts(clause, at)
        if clause.kind == "request" or clause.past:
            polarity, pending, sized = None, [], False
            continue
        size_facts = _size_facts(clause, at, listed=sized)
        sized = sized or bool(size_facts)
        facts += size_facts
        facts += _budget_facts(clause, at)
        preferences, polarity, pending = _preference_facts(
            clause, at, inherited=polarity, carried=[] if clause.hard else pending
        )
        if not any(fact.category == "brand" for fact in preferences):
            preferences += _lowercase_brand_facts(clause, at)
        facts += preferences
    # Waist and inseam are named outright, so "32 waist, 34 leg" needs no "I".
    if not facts and all(c.kind == "statement" for c in sentence.clauses):
        for clause in sentence.clauses:
            if _MEASURE_FIRST.match(clause.text):
                at = sentence.start + clause.start
                facts += _waist_inseam_facts(clause.text, at)
    return facts


# --- Preferences: colours, brands, designs, materials, values ----------------------------

_NEGATORS = frozenset(
    "not don't dont do_not doesn't doesnt does_not never no_longer didn't didnt isn't isnt "
    "aren't arent wouldn't wouldnt won't wont hardly rarely".split()
)
_NEGATIVE_CUES = (
    "hate", "hates", "hated", "dislike", "dislikes", "detest", "loathe", "avoid", "avoids",
    "can't stand", "cannot stand", "can't bear", "can't do", "not a fan of",
    "not a big fan of", "not a huge fan of", "not much of a fan of", "no fan of", "not into",
    "not really into", "not keen on", "not fond of", "not crazy about", "not big on",
    "sick of", "tired of", "done with", "over it", "allergic to", "stay away from",
    "steer clear of", "keep away from", "without", "no", "not", "never", "nothing",
    "nothing in", "anything but", "everything but", "anything except", "everything except",
    "except", "apart from", "other than", "no more", "boycott", "stopped buying",
    "stopped wearing", "never buy", "never wear", "don't wear", "do not wear", "won't wear",
    "wouldn't wear", "can't wear", "don't buy", "won't buy", "doesn't suit me",
    "don't suit me", "does not suit me", "isn't my colour", "isn't my color",
    "is not my colour", "aren't my colours", "not my colour", "not my color", "not my thing",
    "not my style", "not for me", "isn't for me", "aren't for me", "isn't me", "aren't me",
    "aren't really me", "isn't really me", "washes me out", "wash me out", "makes me itch",
    "make me itch", "makes me sweat", "make me sweat", "look terrible in", "look awful in",
    "look bad in", "looks terrible on me", "looks awful on me", "looks bad on me", "a no-go",
    "a no go", "can't stand the", "ugh", "i'm over", "i am over", "so over", "a big no",
    "gone off", "gone right off", "had enough of", "a hard no", "hard no",
    "stopped shopping at", "wary of", "look washed out in", "washed out in",
    "fallen out of love with", "boring", "so boring", "ugly", "hideous", "awful", "horrible",
    "unflattering", "not flattering", "itchy", "itchy in", "get itchy", "not a big fan",
    "stopped buying from", "no longer buy", "boycotting", "too", "bad luck with",
    "bad experience with", "disappointed with", "disappointed by", "sensitive to", "react to",
)  # fmt: skip
_POSITIVE_CUES = (
    "like", "likes", "love", "loves", "adore", "prefer", "prefers", "preferably", "favourite",
    "favorite", "fave", "go-to", "fan", "fan of", "loyal to", "swear by", "stick to",
    "stick with", "always buy", "always wear", "always go for", "usually go for",
    "usually buy", "usually wear", "tend to go for", "tend to wear", "tend to buy",
    "mostly wear", "mostly buy", "mainly wear", "often wear", "only wear", "only buy", "only",
    "strictly", "100%", "pure", "i'm into", "i am into", "really into", "big into",
    "all about", "obsessed with", "suits me", "suit me", "look good in", "look great in",
    "looks good on me", "looks great on me", "is my colour", "is my color", "my thing",
    "my style", "matter to me", "matters to me", "important to me", "care about", "must",
    "a must", "fits me best", "fit me best", "works for me", "trust", "can't live without",
    "go for", "opt for", "lean towards", "gravitate towards", "is the best", "are the best",
    "try to buy", "try to", "trying to", "person", "guy", "girl", "gal", "team",
    "wear a lot of", "wear lots of", "own a lot of", "lovely on me", "great on me",
    "good on me", "nice on me", "best on me", "loved", "always loved", "always liked",
    "shop at", "buy from", "shop from", "matters", "matter", "i buy", "i wear",
    "never let me down", "never lets me down", "never disappoints", "never disappoint",
    "never fails", "fits my feet", "fit my feet", "for me", "obsessed", "always", "big on",
    "go back to", "rate", "really rate", "faithful to", "for life", "forever", "the way to go",
    "way to go", "choose", "i'd choose", "every time", "top picks", "my picks", "top choice",
    "first choice", "go-tos", "go-to's", "uniform", "my colour", "my color", "clothes at",
    "clothes from", "everything at", "everything from", "stuff at", "stuff from", "fit me",
    "fits me", "more into", "more of a", "all the way", "look for", "always look for",
    "favourites", "favorites", "faves", "i'd rather", "would rather", "rather have", "loyal",
    "my weakness", "weakness for", "works on me", "work on me", "fit me perfectly",
    "fits me perfectly", "fit me well", "fits me well", "try to wear", "try to stick to",
)  # fmt: skip
_NEUTRAL_CUES = (
    "don't mind", "do not mind", "doesn't matter", "fine with", "ok with", "okay with",
    "open to", "whatever", "either", "not sure", "don't care", "less", "fewer", "heard of",
    "too expensive", "too pricey", "too dear", "too much", "too expensive for me",
    "too pricey for me",
)  # fmt: skip
_CONTRAST_CUES = ("over", "rather than", "instead of", "more than", "than", "versus", "vs")
_DETERMINERS = frozenset("this that these those it its it's which".split())
_PRODUCT_NOUNS = frozenset("one ones pair pairs version style model item".split())


def _product_reference(tokens: list[_Token], index: int, width: int) -> bool:
    """ "the black one", "that red dress", "the Vela jacket": a product, not a preference."""
    before = tokens[index - 1].lower if index > 0 else ""
    after = tokens[index + width].lower if index + width < len(tokens) else ""
    if before in _DETERMINERS:
        return True
    return before == "the" and (after in _PRODUCT_NOUNS or after in _GARMENT_WORDS)


# Capitalised words that are not brands.
_NOT_BRANDS = frozenset(
    """money price prices shipping delivery quality comfort style fit everything nothing
    something anything this that it these those which what who budget sustainability honestly
    maybe sorry great wow cool nice perfect lovely sure really actually also plus well usually
    normally generally mostly always never only just going keep show find give get tell
    i i'm i've i'd i'll im ok okay hi hello hey thanks thank please yes no eu uk us usa eur
    xs xxs s m l xl xxl xxxl monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december christmas
    easter the a an my and but so also honestly personally size medium small large""".split()
)
_PREPOSITIONS = frozenset("in from at to near around into through".split())
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['&.\-][A-Za-z0-9]+)*%?|&|[?,.;!]")
_MAX_PHRASE = 4


def _phrase_table() -> dict[tuple[str, ...], tuple[str, object]]:
    table: dict[tuple[str, ...], tuple[str, object]] = {}
    for cue in _NEUTRAL_CUES:
        table[tuple(cue.split())] = ("neutral", None)
    for cue in _CONTRAST_CUES:
        table[tuple(cue.split())] = ("contrast", None)
    for cue in _POSITIVE_CUES:
        table[tuple(cue.split())] = ("positive", None)
    for cue in _NEGATIVE_CUES:
        table[tuple(cue.split())] = ("negative", None)
    for negator in _NEGATORS:
        table.setdefault(tuple(negator.replace("_", " ").split()), ("negator", None))
    for category, terms in (
        ("material", MATERIAL_TERMS),
        ("design", DESIGN_TERMS),
        ("values", VALUE_TERMS),
        ("colour", COLOUR_TERMS),
    ):
        for word, (key, phrase) in terms.items():
            table[tuple(_TOKEN.findall(word))] = ("term", (category, key, phrase))
            if category == "colour" and " " not in word and not word.endswith("s"):
                table.setdefault((word + "s",), ("term", (category, key, phrase)))  # "pinks"
    # "I'm vegan" is a value in itself; "vegan leather" stays one term.
    table[("i'm", "vegan")] = ("term+", ("values", *VALUE_TERMS["vegan"]))
    table[("i", "am", "vegan")] = ("term+", ("values", *VALUE_TERMS["vegan"]))
    return table


_PHRASES = _phrase_table()
# Cues that can follow the word they judge ("green is my favourite", "wool makes me itch");
# the others take the word after them ("I hate yellow", "never black").
_PREDICATE_CUES = frozenset(
    (
        "favourite", "favorite", "favourites", "favorites", "fave", "faves", "go-to", "go-tos",
        "go-to's", "suits me", "suit me", "look good in", "look great in", "looks good on me",
        "looks great on me", "is my colour", "is my color", "my colour", "my color",
        "my thing", "my style", "matter to me", "matters to me", "matters", "matter",
        "important to me", "a must", "must", "fits me best", "fit me best", "fits me",
        "fit me", "fit me perfectly", "fits me perfectly", "fit me well", "fits me well",
        "fits my feet", "fit my feet", "works for me", "works on me", "work on me", "for me",
        "person", "guy", "girl", "gal", "fan", "is the best", "are the best",
        "never let me down", "never lets me down", "never disappoints", "never disappoint",
        "never fails", "lovely on me", "great on me", "good on me", "nice on me", "best on me",
        "my weakness", "uniform", "top picks", "my picks", "top choice", "first choice",
        "all the way", "only", "loyal", "doesn't suit me", "don't suit me", "does not suit me",
        "isn't my colour", "isn't my color", "is not my colour", "aren't my colours",
        "not my colour", "not my color", "not my thing", "not my style", "not for me",
        "isn't for me", "aren't for me", "isn't me", "aren't me", "aren't really me",
        "isn't really me", "washes me out", "wash me out", "makes me itch", "make me itch",
        "makes me sweat", "make me sweat", "looks terrible on me", "looks awful on me",
        "looks bad on me", "a no-go", "a no go", "a big no", "boring", "so boring", "ugly",
        "hideous", "awful", "horrible", "unflattering", "not flattering", "too", "itchy",
        "every time", "a hard no", "hard no", "for life", "forever", "the way to go",
        "way to go",
    )
)  # fmt: skip
# A verdict in so many words makes a clause the shopper's even with no "I" in it
# ("recycled materials are the way to go", "neon is a hard no").
_VERDICT = re.compile(
    r"\b(?:"
    + "|".join(
        re.escape(cue)
        for cue in sorted(_PREDICATE_CUES, key=len, reverse=True)
        if " " in cue or cue in ("boring", "ugly", "hideous", "awful", "horrible", "itchy")
    )
    + r")\b",
    re.I,
)

_CUE_KINDS = ("positive", "negative", "negator", "neutral")
_BRAND_IS_FAVOURITE = re.compile(
    r"\b(?:my|our)\s+(?:absolute\s+)?(?:favourite|favorite|fave|go-to|usual|preferred)\s+"
    r"(?:brand|label)s?\s+(?:is|are|has to be|would be)\s+(?P<brand>[\w'&]+(?:\s+(?:&\s+)?[\w'&]+)?)"
    r"|(?P<brand2>[\w'&]+(?:\s+&\s+[\w'&]+)?)\s+(?:is|are)\s+(?:my|our)\s+(?:absolute\s+)?"
    r"(?:favourite|favorite|fave|go-to|usual|preferred)\s+(?:brand|label)\b",
    re.I,
)


@dataclass(frozen=True)
class _Token:
    text: str
    lower: str
    start: int


Pending = list[tuple[int, tuple[str, str, str]]]


def _preference_facts(
    clause: Clause, at: int, *, inherited: str | None, carried: Pending
) -> tuple[list[Judged], str | None, Pending]:
    """Liked and disliked terms of one clause, the polarity a following list inherits, and
    the terms still waiting for a predicate ("beige, cream and white are my go-tos")."""
    tokens = [
        _Token(m.group(0), m.group(0).lower(), m.start()) for m in _TOKEN.finditer(clause.text)
    ]
    facts: list[Judged] = []
    # A list goes on after a comma only when the clause brings no cue of its own:
    # "I love navy, olive and grey" but "I hate brown, and Vela is my favourite brand".
    own_cue = any(_phrase_at(tokens, i)[0] in _CUE_KINDS for i in range(len(tokens)))
    polarity = None if own_cue else inherited
    negator_at = -10
    # Words waiting for a predicate carry over a comma only into a list of more such words.
    first = next((i for i, t in enumerate(tokens) if t.lower not in ("and", "or")), None)
    continues = first is not None and _phrase_at(tokens, first)[0] == "term"
    pending: Pending = list(carried) if continues else []
    taken_since_cue = False
    last_cue = ""
    cue_end = -10
    index = 0
    while index < len(tokens):
        kind, value, width = _phrase_at(tokens, index)
        # "loyal to Birkenstock", "stopped buying from Primark": a cue just before a name.
        after_cue = index - cue_end <= 1
        if kind == "word" and _is_brand_start(tokens, index, clause, after_cue=after_cue):
            brand, width = _brand_at(tokens, index)
            kind, value = "term", ("brand", slot_key(brand), brand)
        if kind == "negator":
            negator_at, polarity, taken_since_cue = index, DISLIKE, False
            last_cue = tokens[index].lower
        elif kind == "positive" and width == 2 and tokens[index].lower == "for" and polarity:
            pass  # "for me" only confirms a word nothing else has judged yet
        elif kind == "positive" and _such_as(tokens, index, width):
            pass  # "brands like Shein": an example of what went before, not a liking
        elif kind == "positive":
            polarity = DISLIKE if index - negator_at <= 3 else LIKE
            taken_since_cue, last_cue = (
                False,
                " ".join(t.lower for t in tokens[index : index + width]),
            )
        elif kind == "negative":
            polarity = "ignore" if 0 < index - negator_at <= 3 else DISLIKE
            taken_since_cue, last_cue = False, tokens[index].lower
            if width == 1 and last_cue in ("not", "never", "no"):
                negator_at = index  # "not really a fan of" flips the liking after it
        elif kind == "neutral":
            polarity, taken_since_cue = "ignore", False
        elif kind == "contrast" or (
            tokens[index].lower == "to" and last_cue.startswith("prefer") and taken_since_cue
        ):
            # "blue over black", "muted tones over bright ones": what it is compared with
            # is not liked (nor disliked).
            if polarity == LIKE and (taken_since_cue or last_cue.startswith("prefer")):
                polarity = "ignore"
        elif kind in ("term", "term+"):
            if kind == "term+":
                polarity = LIKE
            following = tokens[index + width].lower if index + width < len(tokens) else ""
            if _product_reference(tokens, index, width):
                pass  # "the black one" is a product, not a preference
            elif [t.lower for t in tokens[max(0, index - 2) : index]] == ["the", "only"]:
                pass  # "merino is the only wool I can wear" says nothing of other wool
            elif following in ("brand", "brands", "label") and value[0] == "material":
                pass  # "the only denim brand I trust" names a brand, not a material
            elif polarity in (LIKE, DISLIKE):
                facts.append(_preference(value, polarity, at + tokens[index].start))
                taken_since_cue = True
            elif polarity is None:
                pending.append((at + tokens[index].start, value))
        cue = " ".join(t.lower for t in tokens[index : index + width])
        if pending and cue in _PREDICATE_CUES and polarity in (LIKE, DISLIKE):
            # A predicate after the word: "green is my favourite", "beige washes me out";
            # "navy, never black" says nothing of navy.
            facts += [_preference(term, polarity, position) for position, term in pending]
            pending = []
            taken_since_cue = True
        if kind in ("positive", "negative", "negator"):
            cue_end = index + width
        index += width
    return facts, polarity if polarity in (LIKE, DISLIKE) else None, pending


_LIKE_SUBJECTS = frozenset(
    "i we you they really also still just do don't dont i'd we'd would actually totally "
    "definitely genuinely quite kinda generally usually mostly and to".split()
)


def _such_as(tokens: list[_Token], index: int, width: int) -> bool:
    """ "like" after a noun means "such as" ("fabrics like linen", "brands like Shein")."""
    if width != 1 or tokens[index].lower != "like" or index == 0:
        return False
    return tokens[index - 1].lower not in _LIKE_SUBJECTS and tokens[index - 1].text.isalpha()


def _phrase_at(tokens: list[_Token], index: int) -> tuple[str, object, int]:
    for width in range(min(_MAX_PHRASE, len(tokens) - index), 0, -1):
        hit = _PHRASES.get(tuple(t.lower for t in tokens[index : index + width]))
        if hit:
            # "no more than 50" is a budget; "any" before a term is not neutral about it.
            following = tokens[index + width].lower if index + width < len(tokens) else ""
            if hit[0] == "negative" and following == "than":
                continue
            return hit[0], hit[1], width
    return "word", None, 1


def _is_brand_start(tokens: list[_Token], index: int, clause: Clause, *, after_cue: bool) -> bool:
    token = tokens[index]
    if not token.text[:1].isupper() or token.lower in _NOT_BRANDS or token.lower.isdigit():
        return False
    if (
        index > 0
        and tokens[index - 1].text[:1].isupper()
        and tokens[index - 1].lower not in _NOT_BRANDS
    ):
        return False  # inside a name already read
    if index > 0 and tokens[index - 1].lower in _PREPOSITIONS and not after_cue:
        return False  # "in Berlin", "from Spain": places
    if index == 0 and clause.start == 0:
        # A sentence's first word is capitalised anyway: a brand only when a verb about it
        # follows ("Patagonia has never let me down", "Zara never fits me").
        return bool(_BRAND_IS_FAVOURITE.match(clause.text) or _BRAND_SUBJECT.match(clause.text))
    return True


_BRAND_POSSESSIONS = frozenset(
    "designs design stuff style styles clothes clothing collection collections things range cut "
    "cuts fit quality fabrics sizing sizes prices price service stores shops website products "
    "items".split()
)
_BRAND_SUBJECT = re.compile(
    r"[A-Z][\w'&]*(?:\s+(?:&\s+|and\s+)?[A-Z][\w'&]*)*(?:\s+" + _GARMENT_NOUNS + r")?\s+"
    r"(?:is|are|has|have|makes?|fits?|suits?|never|all the way|for life|forever|"
    r"always|really|just|runs?|works?)\b"
)


def _brand_at(tokens: list[_Token], index: int) -> tuple[str, int]:
    """Read a brand name: capitalised words, joined by "&" ("Fjord & Pine", "New Balance")."""
    end = index + 1
    while end < len(tokens):
        token = tokens[end]
        if token.text == "&" and end + 1 < len(tokens) and tokens[end + 1].text[:1].isupper():
            end += 2
        elif token.text[:1].isupper() and token.lower not in _NOT_BRANDS:
            end += 1
        else:
            break
    words = [t.text for t in tokens[index:end]]
    following = tokens[end].lower if end < len(tokens) else ""
    if words[-1].endswith("'s") and following in _BRAND_POSSESSIONS:
        words[-1] = words[-1][:-2]  # "Vela's designs" is Vela; "Levi's jeans" stays Levi's
    return " ".join(words).replace(" & ", " & "), end - index


def _preference(term: tuple[str, str, str], polarity: str, position: int) -> Judged:
    category, key, phrase = term
    return Judged(
        position=position,
        fact=preference_sentence(category, polarity, phrase),
        category=category,
        slot=f"{category}/{key}",
        value=polarity,
    )


def _lowercase_brand_facts(clause: Clause, at: int) -> list[Judged]:
    match = _BRAND_IS_FAVOURITE.search(clause.text)
    if not match:
        return []
    brand = (match.group("brand") or match.group("brand2")).strip()
    if brand.lower() in _NOT_BRANDS or brand.lower() in COLOUR_TERMS:
        return []
    shown = brand if any(ch.isupper() for ch in brand) else brand.title()
    return [_preference(("brand", slot_key(shown), shown), LIKE, at + match.start())]


# --- Sizes ---------------------------------------------------------------------------

_LETTER = r"(?:XXXL|XXL|XL|XXS|XS|3XL|2XL|S|M|L)"
_LETTER_WORDS = {
    "extra small": "XS", "x-small": "XS", "small": "S", "medium": "M", "large": "L",
    "extra large": "XL", "x-large": "XL", "xx-large": "XXL", "2xl": "XXL", "3xl": "XXXL",
}  # fmt: skip
_SIZE_MENTION = re.compile(
    rf"(?<![\w'&])(?P<letter>{_LETTER}|xxxl|xxl|xl|xxs|xs|s|m|l)(?![\w'&])"
    r"|\b(?P<word>(?i:extra small|x-small|extra large|x-large|xx-large|small|medium|large))\b"
    r"|(?P<number>\b(?i:(?:eu|uk|us)\s*)?\d{1,2}(?:[.,]5)?(?![\d%])(?i:\s*(?:eu|uk|us)\b)?)",
)
# What makes a size the shopper's own, said before it.
_SIZE_CUE = re.compile(
    r"\b(?:i'm|im|i am|i\s+(?:usually\s+|normally\s+|always\s+|generally\s+|typically\s+|"
    r"mostly\s+|often\s+|tend to\s+)?(?:wear|take|get|buy|order|go for|fit)|i'm usually|i'm normally|i'm generally|i'm typically|i'm always|"
    r"i'm now|i'm more of|now|size|sizes|wear|take|fits me|fit me|gone up to|went up to|"
    r"gone down to|went down to|moved up to|moved down to|my feet are|feet are|waist|inseam|"
    r"leg|length|i've been|been|usually|normally|generally|typically|gone from|went from|"
    r"dropped to|dropped down to|down to|switched to|moved to|shrunk to)\b|"
    r"\b(?:is|are)\s+(?:always\s+|usually\s+|normally\s+)?(?:an?|size)\s+(?=\w)|"
    r"\b" + _GARMENT_NOUNS + r"\s+(?:are|is)\s+(?:always\s+|usually\s+|normally\s+)?"
    r"(?:an?\s+|size\s+)?(?=\d|[SMLX])|"
    r"^"
    + _GARMENT_NOUNS
    + r"\s*:?\s*(?:always\s+|usually\s+|normally\s+)?(?:\d|[SMLX])|\b(?:in|for)\s+(?:my\s+)?"
    + _GARMENT_NOUNS
    + r"\b",
    re.I,
)
_NEGATED_SIZE = re.compile(
    r"\b(?:not|no longer|never|isn't|aren't|instead of|rather than|from)\s+(?:really\s+)?"
    r"(?:(?:a|an|in)\s+)?(?:size\s+)?(?:" + _LETTER + r"|\d{1,2}|small|medium|large)\b"
    r"(?:\s+any\s?more)?",
    re.I,
)
_PRICE_BEFORE = re.compile(
    r"(?:than|under|over|below|above|(?<!went )(?<!gone )(?<!moved )up to|max|about|around|spend|"
    r"spending|pay|budget|€)$"
)
_NUMBER_VALUE = re.compile(r"^(?:(eu|uk|us)\s*)?(\d{1,2})(?:[.,](5))?(?:\s*(eu|uk|us))?$", re.I)
_SIZE_SYSTEM = re.compile(r"(?i:\b(uk|us|eu)\s+siz(?:es|ing)\b)|\b(UK|US|EU)\b")
_SHOE_CONTEXT = re.compile(
    r"\b(?:shoes?|sneakers?|trainers?|boots?|sandals?|heels|loafers|feet|foot|footwear|eu)\b", re.I
)
_ARTICLE_NUMBER = re.compile(
    r"\b(?:i'm|im|i am|i take|i wear|i usually take|i usually wear)\s+(?:a|an|size)\s+(\d{2})\b",
    re.I,
)
_NOT_A_SIZE = re.compile(
    r"^\s*(?:years?|yo|y/o|kg|kilos?|cm|lbs?|pounds|euros?|eur|€|%|minutes|km|times)\b", re.I
)
_RELATIVE = re.compile(
    r"\b(?:went|gone|going|go|moved|move|have gone|'ve gone)\s+(?P<way>up|down)\s+"
    r"(?P<count>a|one|two|1|2)\s+(?:(?P<kind>shoe|dress|jeans|trouser|jacket|coat)\s+)?sizes?\b"
    r"|\b(?:i'm|i am|im)\s+(?:now\s+)?(?P<count2>a|one|two)\s+"
    r"(?:(?P<kind2>shoe|dress|jeans|trouser|jacket|coat)\s+)?sizes?\s+"
    r"(?P<way2>bigger|larger|up|smaller|down)\b",
    re.I,
)
_GARMENT_WORDS = {word: slot for slot, words in GARMENT_SLOTS.items() for word in words}
_GARMENT = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _GARMENT_WORDS), key=len, reverse=True)) + r")\b", re.I
)


def _size_facts(clause: Clause, at: int, *, listed: bool) -> list[Judged]:
    """Sizes of one clause, each for the garment named next to it ("a 38 in shoes and a small
    in tops"). A garment given two different sizes ("M or L") gets none."""
    text = clause.text
    if not (_SIZE_CUE.search(text) or listed or _RELATIVE.search(text) or _BARE_SIZE.match(text)):
        return []
    cleaned = _NEGATED_SIZE.sub(_blank, text)
    facts = _waist_inseam_facts(cleaned, at)
    for pattern in (_WAIST_BY_INSEAM, _WAIST, _INSEAM):
        cleaned = pattern.sub(_blank, cleaned) if facts else cleaned
    garments = list(_GARMENT.finditer(cleaned))
    mentions = list(_SIZE_MENTION.finditer(cleaned))
    by_slot: dict[str, list[tuple[int, str, str | None]]] = {}
    floor = 0
    for number, match in enumerate(mentions):
        limit = mentions[number + 1].start() if number + 1 < len(mentions) else len(cleaned)
        garment, floor = _garment_near(garments, match, floor=floor, limit=limit)
        slot = _GARMENT_WORDS[garment] if garment else "size/tops"
        sized = _size_value(match, cleaned, slot=slot, garment=garment is not None)
        if sized is None:
            continue
        kind, value = sized
        by_slot.setdefault("size/shoes" if kind == "shoe" else slot, []).append(
            (match.start(), value, garment)
        )
    for slot, found in by_slot.items():
        if len({value for _, value, _ in found}) != 1:
            continue
        start, value, garment = found[0]
        # The shopper's own garment word, except where the slot says it already.
        shown = None
        if garment and slot != "size/shoes" and garment not in ("tops", "top"):
            shown = _plural(garment)
        facts.append(Judged(at + start, size_sentence(slot, value, shown), "size", slot, value))
    if not facts:
        clause_garment = garments[0].group(1).lower() if garments else None
        slot = _GARMENT_WORDS[clause_garment] if clause_garment else "size/tops"
        relative = _relative_fact(cleaned, at, slot=slot)
        facts += [relative] if relative else []
    return facts


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def _garment_near(
    garments: list[re.Match], mention: re.Match, *, floor: int, limit: int
) -> tuple[str | None, int]:
    """The garment a size is given for: the first named after it (before the next size and
    close by), else the last named before it and after the garment of the size before
    ("for dresses I'm a small"). Returns it and where the next size may look back to."""
    after = [g for g in garments if mention.end() <= g.start() < min(limit, mention.end() + 40)]
    if after:
        return after[0].group(1).lower(), after[0].end()
    before = [g for g in garments if floor <= g.start() < mention.start()]
    return (before[-1].group(1).lower() if before else None), mention.end()


def _size_value(match: re.Match, text: str, *, slot: str, garment: bool) -> tuple[str, str] | None:
    """("letter" | "shoe" | "garment", value) for one size mention, or None."""
    if text[: match.start()].rstrip().lower().endswith(("the", "that", "this")):
        return None  # "returning the L": a product's size, not the shopper's
    before = text[: match.start()].rstrip().lower()
    if match.group("letter"):
        letter = match.group("letter")
        # Lowercase "m", "s", "l" are words, not sizes, unless "size" says otherwise.
        if letter in ("s", "m", "l") and not before.endswith("size"):
            return None
        if slot == "size/shoes":
            return None
        return "letter", letter.upper().replace("2XL", "XXL").replace("3XL", "XXXL")
    if re.match(
        r"\s*[-/]\s*(?:xxs|xs|s|m|l|xl|xxl|small|medium|large)\b", text[match.end() :], re.I
    ):
        return None  # "medium-large", "M/L": between sizes
    if match.group("word"):
        before = text[max(0, match.start() - 12) : match.start()].lower()
        after = text[match.end() :].lower()
        if not (
            re.search(r"\b(?:a|an|size|wear|take|in|usually|normally|get)\s+$", before)
            or re.match(
                r"\s+(?:fits|suits|works|is my size|in|for|" + _GARMENT_NOUNS + r")\b", after
            )
        ):
            return None  # "I'm small" is a build, "I'm a small" a size
        if slot == "size/shoes":
            return None
        return "letter", _LETTER_WORDS[match.group("word").lower()]
    number = _NUMBER_VALUE.match(match.group("number").strip())
    if not number or _NOT_A_SIZE.match(text[match.end() :]) or _PRICE_BEFORE.search(before):
        return None
    if text[: match.start()].rstrip().lower().endswith(("the", "that", "this")):
        return None  # "returning the 42": a product's size
    system = number.group(1) or number.group(4)
    if not system and (named := _SIZE_SYSTEM.search(text)):
        system = named.group(1) or named.group(2)
    whole, half = int(number.group(2)), number.group(3)
    shown = f"{whole}.5" if half else str(whole)
    if system and system.lower() in ("uk", "us"):
        shown = f"{system.upper()} {shown}"
    shoe = slot == "size/shoes" or _SHOE_CONTEXT.search(text)
    if shoe and (system or 34 <= whole <= 49):
        return "shoe", shown
    if garment and slot != "size/shoes" and (system or 2 <= whole <= 58):
        return "garment", shown
    if not garment and system and system.lower() in ("uk", "us") and 2 <= whole <= 30:
        return "garment", shown  # "a size 14 UK": a clothing size
    if not garment and _ARTICLE_NUMBER.search(text) and 35 <= whole <= 48 and not half:
        # "I'm a 42": with no garment named, a number in shoe range is a shoe size.
        return "shoe", shown
    return None


def _relative_fact(text: str, at: int, *, slot: str) -> Judged | None:
    match = _RELATIVE.search(text)
    if not match:
        return None
    way = (match.group("way") or match.group("way2")).lower()
    count = (match.group("count") or match.group("count2")).lower()
    steps = 2 if count in ("two", "2") else 1
    sign = "+" if way in ("up", "bigger", "larger") else "-"
    kind = match.group("kind") or match.group("kind2")
    slot = _RELATIVE_KINDS.get((kind or "").lower(), slot)
    change = f"{sign}{steps}"
    fact = relative_size_sentence(slot, change)
    return Judged(position=at + match.start(), fact=fact, category="size", slot=slot, value=change)


_RELATIVE_KINDS = {
    "shoe": "size/shoes", "dress": "size/dresses", "jeans": "size/bottoms",
    "trouser": "size/bottoms", "jacket": "size/outerwear", "coat": "size/outerwear",
}  # fmt: skip


_WAIST = re.compile(
    r"\b(?P<a>\d{2})\s*(?:\"|''|in(?:ch(?:es)?)?\b)?\s*(?:in\s+the\s+)?waist\b"
    r"|\bwaist(?:\s+size|\s+measurement)?(?:\s+is|\s+of|:)?\s+(?:a\s+|an\s+)?(?P<b>\d{2})\b"
    r"|(?<![\w])w\s?(?P<c>\d{2})\b",
    re.I,
)
_INSEAM = re.compile(
    r"\b(?P<a>\d{2})\s*(?:\"|''|in(?:ch(?:es)?)?\b)?\s*(?:inseam|inside leg|leg length|leg|length)\b"
    r"|\b(?:inseam|inside leg|leg length|leg)(?:\s+is|\s+of|:)?\s+(?:a\s+)?(?P<b>\d{2})\b"
    r"|(?<![\w])l\s?(?P<c>\d{2})\b",
    re.I,
)
_MEASURE_FIRST = re.compile(
    r"^\s*(?:w\s?\d{2}|\d{2}\s*(?:\"|''|in(?:ch(?:es)?)?)?\s*(?:waist|inseam|leg)|waist|inseam)\b",
    re.I,
)
_WAIST_BY_INSEAM = re.compile(r"\b(?P<w>\d{2})\s*(?:/|x|\u00d7|by)\s*(?P<l>\d{2})\b", re.I)
_PAIR_CUE = re.compile(r"\b(?:i'm|i am|i wear|i take|size)\s+(?:an?\s+)?$", re.I)
_BOTTOMS = re.compile(r"\b(?:jeans|trousers|pants|chinos|waist|inseam|leg)\b", re.I)


def _waist_inseam_facts(text: str, at: int) -> list[Judged]:
    facts = []
    pair = _WAIST_BY_INSEAM.search(text)
    if pair and (_BOTTOMS.search(text) or _PAIR_CUE.search(text[: pair.start()])):
        waist, inseam = int(pair.group("w")), int(pair.group("l"))
        if 22 <= waist <= 50 and 26 <= inseam <= 38:
            position = at + pair.start()
            return [
                _measure("size/waist", str(waist), position),
                _measure("size/inseam", str(inseam), position + 1),
            ]
    waist_match = _WAIST.search(text)
    inseam_match = _INSEAM.search(text)
    if waist_match:
        value = next(g for g in waist_match.group("a", "b", "c") if g)
        if 22 <= int(value) <= 50 and (waist_match.group("c") is None or inseam_match):
            facts.append(_measure("size/waist", value, at + waist_match.start()))
    if inseam_match:
        value = next(g for g in inseam_match.group("a", "b", "c") if g)
        if 26 <= int(value) <= 38 and (inseam_match.group("c") is None or waist_match):
            facts.append(_measure("size/inseam", value, at + inseam_match.start()))
    return facts


def _measure(slot: str, value: str, position: int) -> Judged:
    return Judged(position, size_sentence(slot, value), "size", slot, value)


def _plural(word: str) -> str:
    if word.endswith("s") or word in ("knitwear", "outerwear", "footwear", "denim"):
        return word
    return word + "es" if word.endswith(("sh", "ch")) else word + "s"


# --- Budget --------------------------------------------------------------------------

_AMOUNT = r"(?P<cur1>€|eur\b|euro\b|\$|£)?\s*(?P<amount>\d{1,5}(?:[.,]\d{1,2})?)\s*(?P<cur2>€|eur\b|euros?\b|bucks\b|dollars?\b|\$|£|pounds?\b|quid\b)?"
_ACCEPTABLE = (
    r"\s*(?:(?:is|are|would\s+be|'s|works?|would\s+work|seems?)\s+)?(?:fine|ok|okay|good|great|"
    r"alright|acceptable|reasonable|ideal|ideally|preferably|perfect|my\s+limit|the\s+max|"
    r"for\s+me|if\s+possible|by\s+me)\b"
)
_EUROS = r"(?=(?:€|eur\b)|\d+\s*(?:€|eur\b|euros?\b))"
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
        r"\b(?:ideally|preferably)\s+(?:up\s+to|under|below|less\s+than|max(?:imum)?|around)\s+" + _AMOUNT,
        _EUROS + _AMOUNT + r"\s*(?:max|tops|at\s+most)\b",
        r"\b(?:max(?:imum)?|top)\s+spend\s+(?:is\s+|of\s+)?" + _AMOUNT,
        _AMOUNT + r"\s*(?:is|'s|would\s+be)\s+(?:my|the|our)\s+(?:absolute\s+)?(?:limit|max|maximum|ceiling|budget|upper\s+limit|top|most)",
    )
)  # fmt: skip
_TIGHT = re.compile(
    r"\b(?:tight|limited|small|low|strict|shoestring)\s+budget\b|\bon\s+a\s+budget\b|"
    r"\bbudget\s+is\s+(?:really\s+|very\s+|quite\s+|a\s+bit\s+)?(?:tight|limited)\b|\bmoney\s+is\s+tight\b|\bcan't\s+spend\s+(?:much|a\s+lot)\b|"
    r"\bsaving\s+(?:money|up)\b|\bcan't\s+afford\s+(?:much|a\s+lot)\b|\bnothing\s+(?:too\s+)?(?:expensive|pricey|fancy)\b",
    re.I,
)
_NO_BUDGET = re.compile(
    r"\b(?:money|price|budget)\s+(?:is|isn't)\s+(?:no|not an?)\s+(?:object|issue|problem)\b", re.I
)


def _budget_facts(clause: Clause, at: int, *, acceptable_only: bool = False) -> list[Judged]:
    text = clause.text
    if _NO_BUDGET.search(text):
        return []
    patterns = _BUDGET_ACCEPTABLE if acceptable_only else _BUDGET_ACCEPTABLE + _BUDGET_STATED
    for pattern in patterns:
        match = pattern.search(text)
        if not match:
            continue
        currency = (match.group("cur1") or "") + (match.group("cur2") or "")
        if re.search(r"\$|£|dollar|pound|quid", currency, re.I):
            return []  # the shop prices in EUR; another currency is not converted
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
            value = f"{math.floor(amount + 0.5)} EUR"
            return [
                Judged(at + match.start(), budget_sentence(value), "budget", BUDGET_SLOT, value)
            ]
    tight = None if acceptable_only else _TIGHT.search(text)
    if tight:
        return [
            Judged(
                at + tight.start(),
                budget_sentence(TIGHT_BUDGET),
                "budget",
                BUDGET_SLOT,
                TIGHT_BUDGET,
            )
        ]
    return []


# --- Occasions -------------------------------------------------------------------------

_OCCASION_WORDS: dict[str, str] = {
    "wedding": "wedding", "weddings": "wedding", "getting married": "wedding",
    "get married": "wedding", "job interview": "interview", "interview": "interview",
    "interviews": "interview", "hiking": "hiking", "hike": "hiking", "hikes": "hiking",
    "trekking": "hiking", "running": "running", "jogging": "running", "run": "running",
    "half marathon": "marathon", "marathon": "marathon", "beach": "beach", "party": "party",
    "parties": "party", "birthday party": "party", "travel": "travel", "travelling": "travel",
    "traveling": "travel", "trip": "travel", "holiday": "holiday", "holidays": "holiday",
    "vacation": "holiday", "festival": "festival", "festivals": "festival", "funeral": "funeral",
    "office": "office", "for work": "work", "at work": "work", "to work": "work",
    "camping trip": "camping", "hiking trip": "hiking", "beach trip": "beach",
    "skiing trip": "ski", "road trip": "travel", "work clothes": "work", "workwear": "work", "work wear": "work", "work outfits": "work",
    "new job": "work", "ski trip": "ski", "skiing": "ski", "ski": "ski",
    "camping": "camping", "date night": "date", "a date": "date", "first date": "date",
    "gym": "gym", "formal event": "formal", "formal occasion": "formal", "black tie": "formal",
    "black-tie": "formal", "business trip": "business", "business meeting": "business",
    "cycling": "cycling", "bike rides": "cycling", "yoga": "yoga", "for winter": "winter",
    "this winter": "winter", "the winter": "winter", "for summer": "summer",
    "this summer": "summer", "the summer": "summer", "christmas": "christmas",
    "graduation": "graduation", "christening": "christening", "baptism": "christening",
    "prom": "prom", "dinner": "dinner", "gala": "gala",
}  # fmt: skip
_OCCASION = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _OCCASION_WORDS), key=len, reverse=True)) + r")\b", re.I
)
_SEASONS = frozenset({"winter", "summer"})
_OCCASION_CUE = re.compile(
    r"\b(?:for|to|going|go|goes|off to|heading|have|got|attend|attending|upcoming|planning|"
    r"next|this|married|trip|invited|hosting|starting|start|my|our|training|off)\b",
    re.I,
)
_OCCASION_NEGATED = re.compile(
    r"\b(?:not|no longer|never|hate|don't|cancelled|canceled|skip|skipping)\b", re.I
)


def _occasion_facts(clause: Clause, at: int) -> list[Judged]:
    text = clause.text
    # A request is shopping in itself ("I need hiking boots"); a statement needs a cue.
    cued = (clause.kind == "request" and _FIRST_PERSON.search(text)) or _OCCASION_CUE.search(text)
    if clause.past or not cued or _OCCASION_NEGATED.search(text):
        return []
    facts = []
    for match in _OCCASION.finditer(text):
        key = _OCCASION_WORDS[match.group(1).lower()]
        garment_after = _GARMENT.match(text, match.end() + 1)
        if garment_after and (key in _SEASONS or clause.kind == "statement"):
            # "winter coats", "I trust Kestrel for running shoes": a kind of garment; asking
            # for one ("I need hiking boots") is shopping for the occasion.
            continue
        if (
            key == "running"
            and match.group(1).lower() == "run"
            and not re.search(r"\b(?:a|for|go|to)\s+(?:\w+\s+)?run\b", text, re.I)
        ):
            continue  # "I run three times a week" is a habit, not an occasion
        facts.append(
            Judged(
                position=at + match.start(),
                fact=occasion_sentence(OCCASION_PHRASES[key]),
                category="occasion",
                slot=f"occasion/{key}",
                value=key,
            )
        )
    return facts
