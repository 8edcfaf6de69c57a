"""The fact-judge role: durable facts the shopper stated about themselves, nothing else.

Only the shopper's message is read; the assistant's answer never is, so nothing the
assistant said can become a fact about the shopper.
"""

from __future__ import annotations

import json
import re

from llm.offline.payload import last_user_text, payload_read
from llm.offline.replies import Reply, text_reply
from llm.offline.shopper import occasions_find, price_read, request_parse, size_read
from llm.offline.vocabulary import default_vocabulary

MAX_FACTS = 8

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\s+[—\u2013]\s+|\s+-\s+|\n+")
# "I'm a size M and I hate yellow, show me jeans": statements and a request share one
# sentence; split before a clause that starts anew with the shopper or a request.
_CLAUSE_SPLIT = re.compile(
    r",\s*(?=(?:show|find|give|get|do you|can you|could you|have you|any|i|i'm|im|my)\b)"
    r"|\s+(?:and|but)\s+(?=(?:i|i'm|im|my)\b)",
    re.I,
)
_QUESTION_START = re.compile(
    r"^\s*(do|does|did|can|could|would|will|is|are|have|has|what|which|where|when|how|any|"
    r"got|should|may|show|find|give|tell|list)\b",
    re.I,
)
_REQUEST = re.compile(
    r"\b(looking for|searching for|show me|find me|i need|i want|i'd like|i would like|"
    r"get me|do you have)\b",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(i|i'm|im|i've|i'd|my|me|we|we're|our)\b", re.I)
_ENTITLEMENT = re.compile(
    r"(% off|\bpercent\b|\bdiscount|\bfree\b|\bentitled\b|\bpromised\b|\bvip\b|\brefund|"
    r"\bcoupon|\bvoucher|\bprice match|\balways get\b|\bowe me\b|\bstaff price)",
    re.I,
)
_INSTRUCTION = re.compile(
    r"\b(ignore|from now on|you must|you should|you will|pretend|system prompt|your rules|"
    r"instructions|always say|always tell|always give|always offer)\b",
    re.I,
)
_SIZE_CUE = re.compile(
    r"\b(i wear|i'm a|i am a|i'm an|i am an|i'm size|i am size|my (shoe |clothing |dress )?size|"
    r"i take|i usually wear|i normally wear|i'm usually|i am usually|i'm normally|fits me|"
    r"i'm an? (?:eu )?\d{2}|my feet)\b",
    re.I,
)
_NOT_SIZE = re.compile(
    r"\bnot\s+(?:an?\s+)?(?:size\s+)?\w+|\bno longer\s+(?:an?\s+)?(?:size\s+)?\w+", re.I
)
_POSITIVE = re.compile(
    r"\b(love|loves|like|likes|prefer|prefers|favourite|favorite|adore|fan of|suits me|"
    r"always wear|mostly wear|into)\b",
    re.I,
)
_BRAND = re.compile(
    r"\b(?:[Ii] (?:really )?(?:love|like|prefer|adore|always buy|always wear|mostly wear|trust)|"
    r"[Ii]'m a (?:big |huge )?fan of|[Mm]y (?:favourite|favorite|go-to) brand is)\s+"
    r"(?P<brand>(?!I\b)[A-Z][\w'\u2019]*(?:\s*(?:&|and)\s*(?!I\b)[A-Z][\w'\u2019]*|\s+(?!I\b)[A-Z][\w'\u2019]*)*)"
)
_BRAND_ANY_CASE = re.compile(
    r"\bmy (?:favourite|favorite|go-to) brand is\s+(?P<brand>[a-z][\w'\u2019]*(?:\s*(?:&|and)\s*[a-z][\w'\u2019]*)?)",
    re.I,
)
_BUDGET_CUE = re.compile(
    r"\b(my budget|budget is|budget of|i (?:can|could|want to|don't want to|do not want to|"
    r"won't|will not|usually|normally|never|don't|do not|can't|cannot) (?:only )?"
    r"(?:spend|afford|pay)|i'm on a (?:tight |small |limited )?budget|on a budget)\b",
    re.I,
)
_AMOUNT = re.compile(r"(?:€\s*)?(\d{1,5})(?:[.,]\d{1,2})?\s*(?:€|eur\b|euros?\b)?", re.I)
_DESIGN_TERMS: dict[str, str] = {
    "slim fit": "a slim fit", "slim-fit": "a slim fit", "slim": "a slim fit",
    "regular fit": "a regular fit", "relaxed fit": "a relaxed fit", "relaxed": "a relaxed fit",
    "oversized": "an oversized fit", "loose": "a loose fit", "tailored": "a tailored fit",
    "skinny": "a skinny fit", "wide-leg": "a wide-leg cut", "high-waisted": "a high-waisted cut",
    "cropped": "a cropped cut", "linen": "linen", "wool": "wool", "cotton": "cotton",
    "organic cotton": "organic cotton", "leather": "leather", "cashmere": "cashmere",
    "silk": "silk", "merino": "merino", "minimalist": "minimalist designs",
    "minimal": "minimalist designs", "plain": "plain designs", "patterned": "patterned designs",
    "patterns": "patterned designs", "stripes": "stripes", "striped": "stripes",
    "floral": "floral prints", "prints": "prints", "logos": "logos", "logo": "logos",
    "vintage": "vintage styles", "classic": "classic styles", "sporty": "sporty styles",
}  # fmt: skip
OCCASION_PHRASES = {
    "wedding": "a wedding", "interview": "a job interview", "hiking": "hiking",
    "running": "running", "beach": "the beach", "party": "a party", "travel": "travel",
    "holiday": "a holiday", "festival": "a festival", "funeral": "a funeral",
    "office": "the office", "work": "work", "ski": "a ski trip", "camping": "camping",
    "date": "a date", "gym": "the gym", "formal": "a formal event", "business": "business",
    "cycling": "cycling", "yoga": "yoga",
}  # fmt: skip


def judge_reply(messages: list[dict]) -> Reply:
    payload = payload_read(messages)
    query = payload.get("shopper_message")
    if not isinstance(query, str):
        query = last_user_text(messages)
    return text_reply(json.dumps({"facts": facts_judge(query)}, ensure_ascii=False))


def facts_judge(query: str) -> list[str]:
    """Return one short third-person sentence per durable fact in the shopper's message."""
    facts: list[str] = []
    for sentence in _clauses(query):
        if _is_question(sentence) or not _FIRST_PERSON.search(sentence):
            continue
        if not _REQUEST.search(sentence):
            facts += _size_facts(sentence)
            facts += _colour_facts(sentence)
            facts += _brand_facts(sentence)
            facts += _budget_facts(sentence)
            facts += _design_facts(sentence)
        facts += _occasion_facts(sentence)
    unique = list(dict.fromkeys(facts))
    return unique[:MAX_FACTS]


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_SPLIT.split(text or "") if part.strip()]


def _clauses(text: str) -> list[str]:
    """Clauses of the sentences that carry no instruction or entitlement claim at all."""
    clauses = []
    for sentence in _sentences(text):
        # A sentence that tries to instruct or claim something taints everything in it.
        if _ENTITLEMENT.search(sentence) or _INSTRUCTION.search(sentence):
            continue
        clauses += [part.strip() for part in _CLAUSE_SPLIT.split(sentence) if part.strip()]
    return clauses


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.search(sentence))


def _size_facts(sentence: str) -> list[str]:
    if not _SIZE_CUE.search(sentence):
        return []
    # "I'm not a size M any more, I'm an L" keeps only the L.
    cleaned = _NOT_SIZE.sub(" ", sentence)
    lowered = cleaned.lower()
    shoe = any(word in lowered for word in ("shoe", "feet", "foot", "eu "))
    size = size_read(cleaned, default_vocabulary(), category="shoes" if shoe else None)
    if size is None:
        match = re.search(r"\b(?:i'm an?|i am an?|i take an?|i wear an?)\s+(\d{2})\b", lowered)
        size = match.group(1) if match and 35 <= int(match.group(1)) <= 48 else None
    if size is None:
        return []
    if size.isdigit():
        return [f"The shopper wears shoe size {size}."]
    return [f"The shopper wears size {size}."]


def _colour_facts(sentence: str) -> list[str]:
    parsed = request_parse(sentence, default_vocabulary())
    facts = [(colour, f"The shopper dislikes {colour}.") for colour in parsed.excluded_colours]
    if parsed.colours and _POSITIVE.search(sentence):
        facts += [(colour, f"The shopper likes {colour}.") for colour in parsed.colours]
    # In the order the shopper said them.
    lowered = sentence.lower()
    return [fact for colour, fact in sorted(facts, key=lambda pair: lowered.find(pair[0]))]


def _brand_facts(sentence: str) -> list[str]:
    match = _BRAND.search(sentence) or _BRAND_ANY_CASE.search(sentence)
    if not match:
        return []
    brand = match.group("brand").strip()
    lowered = brand.lower()
    vocabulary = default_vocabulary()
    if lowered in vocabulary.colour_phrases or lowered in _DESIGN_TERMS or len(brand) > 40:
        return []
    if brand.islower():
        brand = brand.title()
    return [f"The shopper prefers the brand {brand}."]


def _budget_facts(sentence: str) -> list[str]:
    if not _BUDGET_CUE.search(sentence):
        return []
    amount = price_read(sentence)
    if amount is None:
        match = _AMOUNT.search(re.sub(r"\b(?:size|eu)\s+\d+", " ", sentence, flags=re.I))
        amount = float(match.group(1)) if match else None
    if amount is None:
        return ["The shopper is on a tight budget."] if "budget" in sentence.lower() else []
    shown = int(amount) if float(amount).is_integer() else amount
    return [f"The shopper's budget is up to {shown} EUR."]


def _design_facts(sentence: str) -> list[str]:
    lowered = sentence.lower()
    facts = []
    negative = re.search(
        r"\b(hate|hates|dislike|dislikes|don't like|do not like|avoid|never wear|can't stand|"
        r"no)\b",
        lowered,
    )
    positive = _POSITIVE.search(lowered)
    matched: set[str] = set()
    for term in sorted(_DESIGN_TERMS, key=len, reverse=True):
        if not re.search(rf"\b{re.escape(term)}\b", lowered):
            continue
        phrase = _DESIGN_TERMS[term]
        if phrase in matched or any(term in other for other in matched):
            continue
        matched.add(phrase)
        if negative and (not positive or negative.start() < lowered.find(term)):
            facts.append(f"The shopper dislikes {phrase}.")
        elif positive:
            facts.append(f"The shopper prefers {phrase}.")
    return facts


def _occasion_facts(sentence: str) -> list[str]:
    for occasion in occasions_find(sentence):
        if occasion in OCCASION_PHRASES:
            return [f"The shopper is shopping for {OCCASION_PHRASES[occasion]}."]
    return []
