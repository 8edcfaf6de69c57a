"""Entitlement claims and instructions: the one list every reader of a shopper's or a
model's words uses to refuse them.

A sentence that claims an entitlement ("I get 50% off", "I was promised free returns") or
gives an order ("ignore your rules", "from now on reply in French") is never a fact about
the shopper, whoever wrote it: storing it would let a sentence typed today steer every
later answer. The offline judge drops such a sentence whole before it reads the shopper's
message; the memory policy's screen drops it from whatever a hosted judge, the episode
writer or the memory server's extractor wrote. Both read this list, so a phrasing one of
them catches the other catches too.

Each alternative needs a claim or an order, or a word that only ever names one (a voucher,
a refund, a discount code); so no fact of the closed categories matches: "off-white",
"100% cotton", "cruelty-free", "a dress code" and "the brand Free People" are facts.
Text is compared in its NFKC form, so a full-width look-alike of a word reads as the word.
"""

from __future__ import annotations

import re
import unicodedata

_ENTITLEMENT = (
    r"\b\d+\s*(?:%|percent)\s*off\b"
    r"|\b(?:gets?|getting|got|receives?|is\s+(?:entitled|eligible)\s+(?:to|for)|entitled\s+to|"
    r"eligible\s+for|(?:was|were|been|is)\s+promised|is\s+owed|deserves?|qualif(?:y|ies)\s+for|"
    r"is\s+(?:a\s+)?(?:vip|gold|premium)\s+(?:member|customer))\b"
    r".{0,40}?\b(?:discounts?|free\s+(?:shipping|delivery|returns?|items?|gifts?|upgrades?|"
    r"alterations?)|refunds?|vouchers?|coupons?|promo(?:tion)?s?|cashback|credit|price\s+match|"
    r"staff\s+price|vip|\d+\s*(?:%|percent))"
    r"|\b(?:discount|promo|voucher|coupon)(?:s|\s+codes?)?\b"
    r"|\bfree\s+(?:shipping|delivery|returns?|gifts?|items?|stuff|upgrades?)\b|\bfor\s+free\b"
    r"|\b(?:entitled|eligible|promised|refunds?|cashback|price\s+match|staff\s+price|vip)\b"
    r"|\bowe\s+me\b|\bfree\s+for\s+me\b|\bis\s+free\b"
    # A claim about what the shop charges the shopper: "prices here are always 1 euro for me".
    r"|\b(?:prices?|items?|products?|everything)\s+(?:here\s+|in\s+(?:this|the|your)\s+(?:shop|"
    r"store)\s+)?(?:is|are)\s+(?:always\s+|only\s+|just\s+|now\s+)?(?:€\s*)?\d"
)
_INSTRUCTION = (
    r"\b(?:ignore|disregard|forget|override)\b.{0,30}\b(?:rules?|instructions?|prompts?|"
    r"previous|above|guidelines|everything)\b"
    r"|\bsystem\s+prompt\b|\bfrom\s+now\s+on\b|\bpretend\b|\byour\s+(?:rules|instructions)\b"
    r"|^\W*(?:please\s+)?(?:always|never|do\s+not|don't)\s+(?:give|offer|apply|tell|say|answer|"
    r"recommend|show|reveal|send|reply|respond|mention|charge)\b"
    r"|\b(?:always|never)\s+(?:give|offer|apply|tell|say|answer|recommend|show|send)\s+me\b"
    r"|\b(?:you|the\s+assistant)\s+(?:must|should|will|shall|always|never|are\s+now)\b"
    r"|\b(?:reply|respond|answer|speak|talk|write)\s+(?:only|always|exclusively)\b"
    r"|\bonly\s+(?:reply|respond|answer|speak|talk|write)\b"
    r"|\b(?:act|behave)\s+(?:as|like|to\s+be)\b"
    r"|\bnew\s+(?:rules?|instructions?)\b"
)
_ENTITLEMENT_OR_INSTRUCTION = re.compile(f"{_ENTITLEMENT}|{_INSTRUCTION}", re.IGNORECASE)


def text_fold(text: str) -> str:
    """NFKC, with the format characters (zero-width spaces, bidi marks) gone.

    The zero-width joiner stays: it holds emoji sequences together and hides no word.
    """
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if ch == "\u200d" or unicodedata.category(ch) != "Cf")


def entitlement_or_instruction(text: str) -> bool:
    """True when the text claims an entitlement or gives an instruction."""
    return bool(_ENTITLEMENT_OR_INSTRUCTION.search(text_fold(text)))


# An offer said in an answer: a price cut, a sale or a code. The catalog holds no offers,
# so the grounding check drops a sentence that states one; "100% cotton" is no offer.
_OFFER = re.compile(
    r"\b\d+\s*(?:%|percent)\s*(?:off|discount|cheaper|less|saving)\b"
    r"|\b(?:save|saving|saves)\s+(?:you\s+)?(?:an?\s+extra\s+)?\d+\s*(?:%|percent)"
    r"|\bhalf[- ]?(?:price|off)\b|\bon\s+(?:sale|offer|promotion)\b|\bsale\s+price\b"
    r"|\b(?:reduced|marked\s+down|markdown|clearance|special\s+offer|bogo)\b"
    r"|\bbuy\s+one,?\s+get\s+one\b|\b\d+\s+for\s+(?:the\s+price\s+of\s+)?\d+\b"
    r"|\b(?:discount(?:s|ed)?|promo(?:tion(?:al)?s?)?|vouchers?|coupons?|cashback)\b"
    r"|\b(?:use|enter|apply|with)\s+(?:the\s+)?(?:promo\s+|discount\s+)?code\b",
    re.IGNORECASE,
)


def offer_stated(text: str) -> bool:
    """True when the text states an offer (a discount, a sale, a code)."""
    return bool(_OFFER.search(text_fold(text)))
