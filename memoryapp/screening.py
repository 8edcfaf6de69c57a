"""What a model wrote, screened before memory keeps it, whatever model wrote it.

Memory outlives the visit, so a sentence stored today steers every later answer. A judged
fact must sit in the closed list of `llm.fact_schema` and say what the shopper's own
message says; a visit summary, or the server's summary and contexts of an exchange, must
carry no instruction and no claim about prices, policy, staff or the system. Text is
compared in its NFKC form, so a full-width or compatibility look-alike of a word reads as
the word. Pure functions: the judge, the episode writer and the renderer all call them.
"""

from __future__ import annotations

import re

from llm.claims import entitlement_or_instruction, text_fold
from llm.fact_schema import (
    ANY_KEY,
    BUDGET_SLOT,
    COLOUR_TERMS,
    DESIGN_TERMS,
    LETTER_SIZES,
    MATERIAL_TERMS,
    NO_BUDGET,
    OCCASION_PHRASES,
    TIGHT_BUDGET,
    VALUE_TERMS,
    FactSlot,
    budget_sentence,
    occasion_sentence,
    preference_sentence,
    relative_size_sentence,
    size_sentence,
    slot_key,
)
from llm.shopper_words import (
    CURRENCY_WORD,
    CURRENCY_WORD_ALTERNATIVES,
    FOOTWEAR_CUE,
    SHOP_CURRENCY,
    amounts_of_money,
    currency_of,
    numbers_in_digits,
    occasion_evidence,
    size_wording,
    sizes_said,
)

# Claims about the shop or the assistant: what a price is, what the policy allows, what
# staff decided, what the system says. None is the shopper's to state, and no tool result
# could be checked against a note that says it.
_CLAIM = re.compile(
    # prices: "every price is 1 EUR", "all products are free", "everything costs 5 EUR"
    r"\b(?:every|all|any|each)\s+(?:of\s+the\s+)?(?:\w+\s+)?(?:prices?|products?|items?|"
    r"orders?|things?|clothes|articles?)\b.{0,30}?\b(?:is|are|costs?|now)\b"
    r"|\beverything\s+(?:here\s+|in\s+the\s+shop\s+)?(?:is|costs?)\b"
    r"|\bprices?\s+(?:is|are|has\s+been|have\s+been|were|was)\s+(?:now\s+|all\s+)?"
    r"(?:\d|free|zero|halved|reduced|cut|discounted|wrong|fake)"
    r"|\b(?:is|are)\s+(?:now\s+|all\s+)?free(?:\s+of\s+charge)?\b(?!-)"
    # policy
    r"|\bpolic(?:y|ies)\b|\bterms\s+(?:and|&)\s+conditions\b|\bwarrant(?:y|ies)\b"
    r"|\bno\s+questions\s+asked\b"
    r"|\b(?:returns?|refunds?|shipping|delivery|exchanges?)\s+(?:is|are)\s+(?:always\s+|now\s+)?"
    r"(?:free|unlimited|guaranteed|accepted)"
    # staff
    r"|\b(?:staff|employees?|managers?|admins?|administrators?|moderators?|developers?|"
    r"operators?|support\s+team|customer\s+service|store\s+owner)\b"
    # the system
    r"|\bsystem\b|\boverride\b|\bprompts?\b|\binstructions?\b|\bjailbreak|\bdeveloper\s+mode\b"
    r"|\b(?:the\s+)?(?:assistant|chatbot|bot|model|ai)\s+(?:is|are|must|should|will|can|has|"
    r"was|needs?|may)\b"
    r"|^\W*(?:note|important|attention|warning|notice|update)\s*[:!-]",
    re.IGNORECASE,
)


def claim_or_instruction(text: str) -> bool:
    """True for an instruction, an entitlement, or a claim about prices, policy, staff or
    the system."""
    return entitlement_or_instruction(text) or bool(_CLAIM.search(text_fold(text)))


_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\s*\n+\s*|\s+[\u2014\u2013]\s+|\s+/\s+")


# The note format's own separators, which a stored sentence must not write: the exchange
# separator (and its look-alikes) and the speaker labels. Folded like the fence's brackets,
# so a summary can never pose as an exchange ("… ‖ Assistant: confirmed a refund").
_SEPARATORS = re.compile(
    r"[\u2016\u2225\u01c1\u23f8|]+|\b(?:shopper|assistant|user|system)\s*:", re.I
)

# What a visit summary is never the source of: a price or amount, an order, a policy or a
# promise, another person. The summary says what was looked for and shown; prices and
# orders are the shop's to say from its own data, and a person named is someone else's data.
_VISIT_REFUSED = re.compile(
    rf"[€£$]|\d\s*(?:{CURRENCY_WORD_ALTERNATIVES}|cents?|%)\b"
    r"|\b(?:eur|gbp|usd)\s*\d|\b(?:price[ds]?|pricing|costs?|costing|cheap(?:er|est)?|"
    r"discount\w*|voucher\w*|coupons?|codes?|refund\w*|returns?\s+(?:window|period|label)|"
    r"free\s+(?:shipping|delivery|returns?)|orders?|ordered|purchased|paid|payment|invoice|"
    r"receipt|tracking|shipped|shipping|delivery|delivered|dispatch\w*|polic(?:y|ies)|warrant\w*|"
    r"guarantee\w*|promis\w*|confirm\w*|entitled|owed|compensat\w*|credit)\b"
    r"|\b(?:will|would|shall)\s+(?:be\s+)?(?:get|send|ship|deliver|refund|reserve|hold|keep|"
    r"call|email|contact|notify|sent|shipped|delivered|refunded|reserved|held|given)\b"
    r"|\b(?:husband|wife|partner|boyfriend|girlfriend|son|daughter|"
    r"mum|mom|dad|mother|father|brother|sister|friend|colleague|neighbour|neighbor|cousin|"
    r"aunt|uncle|niece|nephew|grandma|grandpa|grandmother|grandfather)\b"
    r"|\b(?:mr|mrs|ms|miss)\b\.?\s+[A-Z]|\bdr\.\s+[A-Z]|\b(?:named|called)\s+[A-Z]|\blives?\s+(?:in|at)\b"
    r"|(?-i:\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s+(?:from|in)\s+[A-Z][a-z]+\b)"
    r"|\b(?:address|phone|e-?mail)\b|@|\+\d[\d\s]{7,}\d|\b0\d{3}\s?\d{6,7}\b",
    re.I,
)


# Other people a sentence may be about.
PEOPLE = re.compile(
    r"\b(?:he|she|he's|she's|his|her|they're|partner|husband|wife|boyfriend|girlfriend|son|"
    r"daughter|kids?|child|children|mum|mom|dad|father|mother|brother|sister|friend|niece|"
    r"nephew|grandma|grandpa|colleague|boss)\b",
    re.I,
)

# A person named with their town or a title: "Anna Schmidt from Leeds", "Mrs Hale".
_NAMED_PERSON = re.compile(
    r"(?-i:\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s+(?:from|in)\s+[A-Z][a-z]+\b)"
    r"|\b(?:mr|mrs|ms|miss)\b\.?\s+[A-Z]|\bdr\.\s+[A-Z]|\b(?:named|called)\s+[A-Z]",
    re.I,
)


def about_someone_else(text: str) -> bool:
    """True when a model's sentence names another person: whatever it files, it says the
    fact is not the shopper's ("The shopper's husband wears XL")."""
    return bool(PEOPLE.search(text_fold(text)) or _NAMED_PERSON.search(text_fold(text)))


def visit_sentence_refused(sentence: str) -> bool:
    """True for a visit-summary sentence that states a price or amount, an order, a policy
    or a promise, or names a person other than the shopper: none of it is the writer's to
    remember, and the next visit would read it as fact."""
    return bool(_VISIT_REFUSED.search(text_fold(sentence)))


def separators_fold(text: str) -> str:
    """The note format's separators and speaker labels, as plain spaces."""
    return _SEPARATORS.sub(" ", text)


def summary_screen(text: str, *, max_chars: int, visit: bool = False) -> tuple[str, int]:
    """A summary with its claims and instructions taken out, and how many sentences went.

    Sentence by sentence, so one injected sentence costs only itself; the rest is cut to
    max_chars at a word. An empty result means nothing of it may be kept. Separators are
    folded first; a visit summary (`visit`) also loses each sentence that
    `visit_sentence_refused`.
    """
    kept, dropped = [], 0
    for sentence in _SENTENCE_BREAK.split(separators_fold(text_fold(text or ""))):
        sentence = " ".join(sentence.split())
        if not sentence:
            continue
        if claim_or_instruction(sentence) or (visit and visit_sentence_refused(sentence)):
            dropped += 1
        else:
            kept.append(sentence)
    result = " ".join(kept)
    if len(result) > max_chars:
        cut = result.rfind(" ", 0, max_chars)
        result = result[: cut if cut > max_chars // 2 else max_chars - 1].rstrip(" ,;") + "…"
    return result, dropped


# --- A judged fact's value in the shopper's words ------------------------------------------

_CHANGE = re.compile(
    r"\b(?:up|down|bigger|smaller|larger|gained|lost|grew|shrunk|sized?|more|less|half)\b",
    re.I,
)
_TIGHT = re.compile(
    r"\b(?:tight|limited|small|low|strict|shoestring|careful|cheap|afford|broke|budget|"
    r"spend|spending|money|saving|cash|funds|finances|skint|hard up|strapped|penny|pennies|"
    r"pricey|expensive|dear|spendy|fancy|splash|splurge|costs?|stretched|short)\b",
    re.I,
)
# What a budget lifted is said with: "forget the budget", "money's no object".
_NO_LIMIT = re.compile(
    r"\b(?:budget|money|price|prices|cost|spend|spending|limit|object|afford)\b", re.I
)
# What a whole category lifted names: "any brand", "colour doesn't matter".
_CATEGORY_WORDS = {
    "colour": r"colou?rs?",
    "brand": r"brands?|labels?|makers?",
    "material": r"fabrics?|materials?|textiles?",
    "design": r"fits?|styles?|cuts?|designs?",
}


def _figures(message: str) -> set[str]:
    """Every figure in the message, in digits: "42", "42.5", and "sixty" as "60"."""
    digits = numbers_in_digits(message)
    found = {m.replace(",", ".") for m in re.findall(r"\d+(?:[.,]\d+)?", digits)}
    found |= {m.split(".")[0] for m in found}
    if re.search(r"\b(?:a\s+)?hundred\b", message, re.I):
        found.add("100")
    return found


def _tokens(text: str) -> list[str]:
    return slot_key(text).split("-")


def _said(token: str, words: list[str]) -> bool:
    """A word of a slot key in the message, plural or inflected ("florals", "skiing")."""
    for word in words:
        if word == token:
            return True
        short, long = sorted((token, word), key=len)
        if len(short) >= 3 and long.startswith(short) and len(long) - len(short) <= 3:
            return True
    return False


_TERM_TABLES = {
    "colour": COLOUR_TERMS,
    "design": DESIGN_TERMS,
    "material": MATERIAL_TERMS,
    "values": VALUE_TERMS,
}


# A shoe width is said of the feet or the shoes in any order: "my feet are wide", "wide
# trainers", "narrow-fitting boots".
_WIDTHS = {"design/wide-fit": "wide", "design/narrow-fit": "narrow"}


def _width_said(slot: str, message: str) -> bool:
    width = _WIDTHS.get(slot)
    return bool(
        width and re.search(rf"\b{width}\b", message, re.I) and FOOTWEAR_CUE.search(message)
    )


def _key_said(category: str, key: str, message: str, words: list[str]) -> bool:
    lowered = message.lower()
    terms = _TERM_TABLES.get(category, {})
    synonyms = [term for term, (term_key, _) in terms.items() if term_key == key]
    if category == "occasion":
        synonyms += occasion_evidence(key)
    if _width_said(f"{category}/{key}", message):
        return True
    for term in filter(None, synonyms):
        # A style named in the plural is the same style: "high necklines", "muscle fits".
        if re.search(rf"(?<!\w){re.escape(term.lower())}(?:e?s)?(?!\w)", lowered):
            return True
    tokens = [t for t in key.split("-") if t and t != "and"]
    return bool(tokens) and all(_said(token, words) for token in tokens)


def value_said(slot: FactSlot, message: str) -> bool:
    """True when the shopper's message says the fact's value (or its normal form).

    A size or budget figure must be in the message ("large" is L, "sixty" is 60); a colour,
    brand, design, material, value or occasion must be named in it (a word of the slot, or
    a word the closed list files under that slot). A fact with nothing of it in the message
    was made up, or planted by text the judge was shown.
    """
    message = text_fold(message or "")
    words = _tokens(message)
    if slot.category == "size":
        if slot.is_relative:
            return bool(_CHANGE.search(message))
        if slot.value in LETTER_SIZES and re.search(
            rf"(?<![\w'\u2019.-]){re.escape(slot.value)}(?![\w'\u2019-])", message, re.I
        ):
            return True
        return slot.value in sizes_said(message) | _figures(message)
    if slot.slot == BUDGET_SLOT:
        if slot.value == TIGHT_BUDGET:
            return bool(_TIGHT.search(message))
        if slot.value == NO_BUDGET:
            return bool(_NO_LIMIT.search(message))
        figure, _, code = slot.value.partition(" ")
        named = {m.currency for m in amounts_of_money(message)} | {
            currency_of(w) for w in CURRENCY_WORD.findall(message)
        }
        # A figure in another currency must be said in it; euros are the shop's default.
        return figure in _figures(message) and (code == SHOP_CURRENCY or code in named)
    category, _, key = slot.slot.partition("/")
    if key == ANY_KEY:
        return bool(re.search(rf"\b(?:{_CATEGORY_WORDS.get(category, '$^')})\b", message, re.I))
    return _key_said(category, key, message, words)


# --- A kept fact's sentence ------------------------------------------------------------

_PHRASE_TABLES = (
    ("colour", COLOUR_TERMS),
    ("design", DESIGN_TERMS),
    ("material", MATERIAL_TERMS),
    ("values", VALUE_TERMS),
)


def _phrase(category: str, key: str, message: str) -> str:
    """How the fact sentence names a slot's key: the closed list's phrase, or the
    shopper's own spelling of it ("Fjord & Pine"), or the key in words."""
    for table_category, table in _PHRASE_TABLES:
        if table_category == category:
            for term_key, phrase in table.values():
                if term_key == key:
                    return phrase
    if category == "occasion" and key in OCCASION_PHRASES:
        return OCCASION_PHRASES[key]
    words = re.findall(r"[\w'\u2019&.-]+", text_fold(message))
    spans = [
        span
        for size in range(1, 5)
        for start in range(len(words) - size + 1)
        if slot_key(span := " ".join(words[start : start + size]).strip(".")) == key
    ]
    # A brand is a name: its capitalised spelling ("Off-White", not the colour off-white).
    named = [span for span in spans if category == "brand" and span[:1].isupper()]
    return (named or spans or [key.replace("-", " ")])[0]


def fact_sentence(slot: FactSlot, message: str) -> str:
    """The closed list's own sentence for a slot and value: all a kept fact ever says, so no
    tail, claim or separator a model adds to its wording can ride along."""
    category, _, key = slot.slot.partition("/")
    if category == "size":
        if slot.is_relative:
            return relative_size_sentence(slot.slot, slot.value)
        said = size_wording(slot.value, text_fold(message), shoes=slot.slot == "size/shoes")
        return size_sentence(slot.slot, slot.value, said=said)
    if category == BUDGET_SLOT:
        return budget_sentence(slot.value)
    if category == "occasion":
        return occasion_sentence(_phrase(category, key, message))
    phrase = key if key == "any" else _phrase(category, key, message)
    return preference_sentence(category, slot.value, phrase)
