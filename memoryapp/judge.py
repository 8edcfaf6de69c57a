"""Model calls of the memory policy: the fact judge and the episode writer.

Both outputs are untrusted: anything but the expected small shape is dropped, so a
confused or manipulated model can at worst fail to remember, never store junk or claims.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

import openai

from llm.fact_schema import (
    BUDGET_SLOT,
    DISLIKE,
    LETTER_SIZES,
    LIKE,
    TIGHT_BUDGET,
    FactSlot,
    slot_from_sentence,
    slot_valid,
)
from llm.factory import chat_client, model_for
from llm.prompts import episode_messages, judge_messages
from memoryapp.conf import memory_conf
from memoryapp.guard import OutageLog

logger = logging.getLogger("memoryapp")

MAX_FACT_CHARS = 160
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)

# Claims of entitlement and instructions are never facts about the shopper, whatever the
# judge says: storing one would let a sentence typed today steer every later answer. Each
# pattern needs a claim or an order, never a single word, so no fact of the closed
# categories can match: "off-white", "100% cotton", "cruelty-free", "a dress code" and
# "the brand Free People" are facts; "gets 50% off", "is entitled to free shipping", "has a
# discount code" and "always give the shopper ..." are not.
_ENTITLEMENT = re.compile(
    r"\b\d+\s*(?:%|percent)\s+off\b"
    r"|\b(?:gets?|getting|got|receives?|is\s+(?:entitled|eligible)\s+(?:to|for)|entitled\s+to|"
    r"eligible\s+for|(?:was|were|been|is)\s+promised|is\s+owed|deserves?|qualif(?:y|ies)\s+for|"
    r"is\s+(?:a\s+)?(?:vip|gold|premium)\s+(?:member|customer))\b"
    r".{0,40}?\b(?:discounts?|free\s+(?:shipping|delivery|returns?|items?|gifts?|upgrades?|"
    r"alterations?)|refunds?|vouchers?|coupons?|promo(?:tion)?s?|cashback|credit|price\s+match|"
    r"staff\s+price|vip|\d+\s*(?:%|percent))"
    r"|\b(?:discount|promo|voucher|coupon)\s+codes?\b"
    r"|\bfor\s+free\b",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,30}\b(?:rules?|instructions?|prompts?|"
    r"previous|above|guidelines)\b"
    r"|\bsystem\s+prompt\b|\bfrom\s+now\s+on\b"
    r"|^\s*(?:please\s+)?(?:always|never)\s+(?:give|offer|apply|tell|say|answer|recommend|show|"
    r"reveal|send)\b"
    r"|\b(?:you|the\s+assistant)\s+(?:must|should|will|shall|always|never)\b",
    re.IGNORECASE,
)
_SIZE_WORDS = {"extra small": "XS", "small": "S", "medium": "M", "large": "L", "extra large": "XL"}
_BUDGET_VALUE = re.compile(
    r"^(?:€\s*)?(\d{1,5})(?:[.,]\d{1,2})?\s*(?:€|eur|euros?)?$", re.IGNORECASE
)


@dataclass(frozen=True)
class JudgedFact:
    """A fact the judge found: its sentence, and where it belongs when the judge said so.

    A bare sentence from a model that left out the slot fields gets one when it is worded as
    `llm.fact_schema` writes facts; otherwise it has none and is consolidated by its text.
    """

    text: str
    slot: FactSlot | None = None

    @property
    def annotations(self) -> dict[str, str]:
        if self.slot is None:
            return {}
        return {"category": self.slot.category, "slot": self.slot.slot, "value": self.slot.value}

    def as_dict(self) -> dict[str, str | None]:
        slot = self.slot
        return {
            "fact": self.text,
            "category": slot.category if slot else None,
            "slot": slot.slot if slot else None,
            "value": slot.value if slot else None,
        }


def fact_allowed(text: str) -> bool:
    """False for a claim of entitlement or an instruction (see _ENTITLEMENT above)."""
    return not (_ENTITLEMENT.search(text) or _INSTRUCTION.search(text))


def _parse_json(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def _sentence(item: Any) -> str | None:
    if not isinstance(item, str):
        return None
    text = " ".join(item.split())
    if not text or len(text) > MAX_FACT_CHARS or not fact_allowed(text):
        return None
    return text


def _value(category: str, value: Any) -> str | None:
    """The value in its one spelling ("m" -> "M", 100 -> "100 EUR"), or None if malformed."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = " ".join(str(value).split())
    if category == "size":
        if text.lower() in _SIZE_WORDS:
            return _SIZE_WORDS[text.lower()]
        system = re.match(r"^(eu|uk|us)\s*(\S+)$", text, re.IGNORECASE)
        if system:
            text = f"{system.group(1).upper()} {system.group(2)}"
        text = re.sub(r"(?<=\d),(?=5$)", ".", text)
        return text.upper() if text.upper() in LETTER_SIZES else text
    if category == "budget":
        if text.lower() == TIGHT_BUDGET:
            return TIGHT_BUDGET
        amount = _BUDGET_VALUE.match(text)
        return f"{int(amount.group(1))} EUR" if amount else None
    if category == "occasion":
        return text.lower()
    return text.lower() if text.lower() in (LIKE, DISLIKE) else None


def _says_its_value(text: str, slot: FactSlot) -> bool:
    """A size or budget must be the one the sentence states: consolidation trusts the value."""
    if slot.is_relative or slot.value == TIGHT_BUDGET:
        return True
    if slot.category == "size":
        words = {word for word, letter in _SIZE_WORDS.items() if letter == slot.value}
        spellings = {slot.value, slot.value.split()[-1], *words}
        return any(
            re.search(rf"(?<![\w.]){re.escape(s)}(?!\w|\.\d)", text, re.I) for s in spellings
        )
    if slot.slot == BUDGET_SLOT:
        return re.search(rf"(?<![\d]){slot.value.split()[0]}(?![\d])", text) is not None
    return True


def _judged(item: Any) -> JudgedFact | None:
    if isinstance(item, str):
        text = _sentence(item)
        return JudgedFact(text, slot_from_sentence(text)) if text else None
    if not isinstance(item, dict):
        return None
    text = _sentence(item.get("fact"))
    category, slot = item.get("category"), item.get("slot")
    if text is None or not isinstance(category, str) or not isinstance(slot, str):
        return None
    value = _value(category, item.get("value"))
    if value is None or not slot_valid(category, slot, value):
        return None
    fact_slot = FactSlot(category, slot, value)
    return JudgedFact(text, fact_slot) if _says_its_value(text, fact_slot) else None


def validate_facts(raw: Any, *, cap: int | None = None) -> list[JudgedFact]:
    """Keep the well-formed facts, one per slot (the later one: a correction), at most cap.

    Accepts {"facts": [...]} or a bare list, as an object or JSON text (fenced or not).
    An item is {"fact", "category", "slot", "value"} from the closed list of
    `llm.fact_schema`, or a bare sentence; anything malformed is dropped, as is any fact
    that claims an entitlement or gives an instruction.
    """
    cap = cap if cap is not None else memory_conf().max_facts_per_turn
    data = _parse_json(raw)
    if isinstance(data, dict):
        data = data.get("facts")
    if not isinstance(data, list):
        return []
    kept: list[JudgedFact] = []
    for item in data:
        fact = _judged(item)
        if fact is None or any(_restates(fact, earlier) for earlier in kept):
            continue
        # The same slot with another value: the shopper corrected themselves.
        kept = [earlier for earlier in kept if not _same_slot(fact, earlier)]
        kept.append(fact)
    return kept[:cap]


def _restates(fact: JudgedFact, other: JudgedFact) -> bool:
    if fact.text.lower().rstrip(".") == other.text.lower().rstrip("."):
        return True
    return _same_slot(fact, other) and fact.slot.value == other.slot.value


def _same_slot(fact: JudgedFact, other: JudgedFact) -> bool:
    return bool(fact.slot and other.slot and fact.slot.slot == other.slot.slot)


def model_outage_log() -> OutageLog:
    """Log a failing model role once, not on every call, and say when it recovers."""
    return OutageLog(
        failing="The %s model failed; %s (logged once until it recovers): %s: %s",
        still="The %s model still fails (%s): %r",
        recovered="The %s model answers again",
    )


model_outages = model_outage_log()


async def _complete_json(*, role: str, messages: list[dict]) -> str | None:
    client = chat_client()
    response = await client.chat.completions.create(
        model=model_for(role),
        messages=messages,
        response_format={"type": "json_object"},
        temperature=0,
    )
    return response.choices[0].message.content if response.choices else None


async def facts_judge(*, query: str, answer: str) -> list[JudgedFact]:
    """Ask the judge which durable facts the shopper stated about themselves."""
    try:
        raw = await _complete_json(role="judge", messages=judge_messages(query, answer))
    except openai.OpenAIError as exc:  # timeouts, refusals, connection errors: no facts
        model_outages.failed("judge", "no facts are kept meanwhile", exc)
        return []
    model_outages.succeeded("judge")
    return validate_facts(raw)


@dataclass(frozen=True)
class Episode:
    summary: str
    occasion: str | None
    found: bool
    follow_ups: list[str]

    @property
    def text(self) -> str:
        parts = [self.summary.rstrip(".") + "."]
        if self.occasion:
            parts.append(f"Occasion: {self.occasion}.")
        parts.append("Found what they wanted." if self.found else "Did not find what they wanted.")
        if self.follow_ups:
            parts.append("Follow-ups: " + "; ".join(f.rstrip(" .") for f in self.follow_ups) + ".")
        return " ".join(parts)


def validate_episode(raw: Any) -> Episode | None:
    data = _parse_json(raw)
    if not isinstance(data, dict):
        return None
    summary = data.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        return None
    occasion = data.get("occasion")
    follow_ups = data.get("follow_ups") or []
    if not isinstance(follow_ups, list):
        follow_ups = []
    return Episode(
        summary=" ".join(summary.split())[:300],
        occasion=" ".join(occasion.split())[:60]
        if isinstance(occasion, str) and occasion.strip()
        else None,
        found=data.get("found") is True,
        follow_ups=[
            " ".join(f.split())[:120] for f in follow_ups if isinstance(f, str) and f.strip()
        ][:3],
    )


async def episode_compose(*, turns: list[tuple[str, str]]) -> Episode | None:
    """Summarise a closed visit for later ones; None when the model gives nothing usable."""
    try:
        raw = await _complete_json(role="episode", messages=episode_messages(turns))
    except openai.OpenAIError as exc:  # a visit without an episode is still remembered
        model_outages.failed("episode", "closed visits get no summary meanwhile", exc)
        return None
    model_outages.succeeded("episode")
    return validate_episode(raw)
