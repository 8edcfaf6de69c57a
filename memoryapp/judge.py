"""Model calls of the memory policy: the fact judge and the episode writer.

Both outputs are untrusted: anything but the expected small shape is dropped, so a
confused or manipulated model can at worst fail to remember, never store junk or claims.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from llm.fact_schema import (
    BUDGET_SLOT,
    DISLIKE,
    LIKE,
    NEUTRAL,
    NO_BUDGET,
    TIGHT_BUDGET,
    FactSlot,
    restatement_key,
    slot_from_sentence,
    slot_valid,
)
from llm.factory import chat_client, model_for, model_mode
from llm.prompts import episode_messages, judge_messages
from llm.shopper_words import (
    SHOP_CURRENCY,
    amounts_of_money,
    currency_of,
    numbers_in_digits,
    size_in_shop_system,
)
from llm.transcript import PRODUCTS_SHOWN
from memoryapp.conf import memory_conf
from memoryapp.guard import OutageLog
from memoryapp.prescreen import judging_needed
from memoryapp.screening import (
    about_someone_else,
    claim_or_instruction,
    fact_sentence,
    summary_screen,
    text_fold,
    value_said,
)

logger = logging.getLogger("memoryapp")

MAX_FACT_CHARS = 160
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)

# A budget as a model may write it: "60", "60 EUR", "£60", "60 quid", "GBP 60".
_BUDGET_VALUE = re.compile(
    r"^(?P<before>[€£$]|[a-z]{3,9})?\s*(?P<amount>\d{1,5})(?:[.,]\d{1,2})?\s*(?P<after>[€£$]|[a-z]{3,9})?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class JudgedFact:
    """A fact the judge found: its sentence, and where it belongs in the closed list."""

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


@dataclass(frozen=True)
class Screened:
    """The facts kept from one judge answer, and how many items the screen dropped."""

    facts: list[JudgedFact]
    dropped: int = 0
    # False when the local screen found nothing to judge and the model was not asked.
    called: bool = True


def fact_allowed(text: str) -> bool:
    """False for a claim (entitlement, prices, policy, staff, the system) or an instruction."""
    return not claim_or_instruction(text)


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
    text = " ".join(text_fold(item).split())
    if not text or len(text) > MAX_FACT_CHARS or not fact_allowed(text):
        return None
    return text


def _value(category: str, slot: Any, value: Any, message: str = "") -> str | None:
    """The value in its one spelling, in the shop's system ("m" -> "M", "UK 8" shoes ->
    "42", "14" dresses -> "L", 100 -> "100 EUR", "£60" -> "60 GBP"), or None if malformed."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = " ".join(str(value).split())
    if category == "size":
        if re.fullmatch(r"[+-][1-3]", text) or slot in ("size/waist", "size/inseam"):
            return text
        womens = bool(re.search(r"\bwom[ae]n'?s\b|\bladies\b", text_fold(message), re.I)) or None
        return size_in_shop_system(text, shoes=slot == "size/shoes", womens=womens)
    if category == "budget":
        if text.lower() in (TIGHT_BUDGET, NO_BUDGET):
            return text.lower()
        amount = _BUDGET_VALUE.match(text)
        if not amount:
            return None
        sign = amount.group("before") or amount.group("after")
        figure = int(amount.group("amount"))
        said = [m.currency for m in amounts_of_money(message) if int(m.amount) == figure]
        # No currency in the value: the one the shopper said it in, else the shop's.
        code = currency_of(sign) if sign else (said[0] if said else SHOP_CURRENCY)
        if code is None and sign and sign.upper() in ("EUR", "GBP", "USD"):
            code = sign.upper()
        return f"{figure} {code}" if code else None
    if category == "occasion":
        return text.lower()
    return text.lower() if text.lower() in (LIKE, DISLIKE, NEUTRAL) else None


def _says_its_value(text: str, slot: FactSlot) -> bool:
    """A size or budget must be the one the sentence states: consolidation trusts the value."""
    if slot.is_relative or slot.value in (TIGHT_BUDGET, NO_BUDGET):
        return True
    if slot.category == "size":
        return value_said(slot, text)
    if slot.slot == BUDGET_SLOT:
        figure = slot.value.split()[0]
        return re.search(rf"(?<![\d]){figure}(?![\d])", numbers_in_digits(text)) is not None
    return True


def _judged(item: Any, message: str) -> JudgedFact | None:
    """The fact of one judge item, or None: the screen drops it.

    Kept only with a category, slot and value of the closed list, a value the shopper's
    message says, and a sentence that is neither a claim nor an instruction.
    """
    if isinstance(item, str):
        text = _sentence(item)
        text = None if text is None or about_someone_else(text) else text
        slot = slot_from_sentence(text) if text else None
        if text is None or slot is None or not value_said(slot, message):
            return None
        return JudgedFact(fact_sentence(slot, message), slot)
    if not isinstance(item, dict):
        return None
    text = _sentence(item.get("fact"))
    category, slot = item.get("category"), item.get("slot")
    if text is None or not isinstance(category, str) or not isinstance(slot, str):
        return None
    if about_someone_else(text):
        return None  # the model's own words say the fact is someone else's
    value = _value(category, slot, item.get("value"), message)
    if value is None or not slot_valid(category, slot, value):
        return None
    fact_slot = FactSlot(category, slot, value)
    if not _says_its_value(text, fact_slot) or not value_said(fact_slot, message):
        return None
    return JudgedFact(fact_sentence(fact_slot, message), fact_slot)


def validate_facts(raw: Any, *, message: str, cap: int | None = None) -> Screened:
    """Screen a judge answer against the shopper's message; one fact per slot, at most cap.

    Accepts {"facts": [...]} or a bare list, as an object or JSON text (fenced or not).
    An item is {"fact", "category", "slot", "value"} from the closed list of
    `llm.fact_schema`, or a sentence worded as that list words facts; anything else (a
    bare sentence of no category, a value the message does not say, a claim or an
    instruction) is dropped and counted. The cap applies to what the screen kept, so no
    number of planted items can push a real fact out.
    """
    cap = cap if cap is not None else memory_conf().max_facts_per_turn
    data = _parse_json(raw)
    if isinstance(data, dict):
        data = data.get("facts")
    if not isinstance(data, list):
        return Screened([], dropped=0 if data is None or data == {} else 1)
    kept: list[JudgedFact] = []
    dropped = 0
    for item in data:
        fact = _judged(item, message)
        if fact is None:
            dropped += 1
            continue
        if any(_restates(fact, earlier) for earlier in kept):
            continue
        # The same slot with another value: the shopper corrected themselves.
        kept = [earlier for earlier in kept if not _same_slot(fact, earlier)]
        kept.append(fact)
    return Screened(kept[:cap], dropped=dropped)


def _restates(fact: JudgedFact, other: JudgedFact) -> bool:
    if restatement_key(fact.text) == restatement_key(other.text):
        return True
    return bool(
        fact.slot
        and other.slot
        and fact.slot.slot == other.slot.slot
        and fact.slot.value == other.slot.value
    )


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
        # The prompts are built as plain dicts in the chat format (`llm.prompts`).
        messages=cast("list[ChatCompletionMessageParam]", messages),
        response_format={"type": "json_object"},
        temperature=0,
    )
    return response.choices[0].message.content if response.choices else None


MAX_QUESTION_CHARS = 200
_QUESTION = re.compile(r"[^.!?\n]*\?")


def answer_question(answer: str) -> str | None:
    """The assistant's last question in its answer, which a short reply may answer
    ("Which size?" — "M, please"); None when it asked nothing."""
    text = answer.split(PRODUCTS_SHOWN, 1)[0]
    questions = [q.strip() for q in _QUESTION.findall(text) if q.strip(" ?")]
    if not questions:
        return None
    # A question after a bracketed aside ("(…) Which size?") starts after the bracket.
    return questions[-1][-MAX_QUESTION_CHARS:].lstrip(" )]}\u201d\"'")


async def facts_screened(*, query: str, question: str | None) -> Screened:
    """Ask the judge which durable facts the shopper stated, and screen its answer.

    The judge reads the shopper's message and at most the assistant's last question before
    it, never an answer: nothing the assistant said can become a fact about the shopper.
    """
    try:
        raw = await _complete_json(role="judge", messages=judge_messages(query, question))
    except openai.OpenAIError as exc:  # timeouts, refusals, connection errors: no facts
        model_outages.failed("judge", "no facts are kept meanwhile", exc)
        return Screened([])
    model_outages.succeeded("judge")
    return validate_facts(raw, message=query)


async def exchange_judge(*, query: str, answer: str) -> list[JudgedFact]:
    """The facts kept from the judge for one exchange, every exchange judged; `answer` is
    the assistant's message the shopper replied to (only its last question is sent)."""
    return (await facts_screened(query=query, question=answer_question(answer))).facts


def judge_hosted() -> bool:
    """True when the judge is a hosted model, whose calls are paid for and waited on."""
    return model_mode() != "offline"


async def turn_judge(*, query: str, question: str | None) -> Screened:
    """A live turn's facts: a hosted judge is asked only when the local screen finds a
    statement the shopper might have made about themselves; the offline one always is."""
    if judge_hosted() and not judging_needed(query, question):
        return Screened([], called=False)
    screened = await facts_screened(query=query, question=question)
    if screened.dropped:
        logger.info(
            "The fact screen dropped %d of the judge's items this turn (no slot of the "
            "closed list, a value the shopper did not say, a claim or an instruction)",
            screened.dropped,
        )
    return screened


MAX_SUMMARY_CHARS = 300
MAX_OCCASION_CHARS = 60
MAX_FOLLOW_UP_CHARS = 120
MAX_FOLLOW_UPS = 3


EPISODE_OUTCOMES = ("found", "shown", "not_found", "browsing")


@dataclass(frozen=True)
class Episode:
    summary: str
    occasion: str | None
    found: bool
    follow_ups: list[str]
    # Sentences the screen took out (claims, instructions): counted, never stored.
    dropped: int = 0
    # "found", "shown" (products shown, none chosen), "not_found" or "browsing"; None when
    # the writer did not say.
    outcome: str | None = None

    @property
    def text(self) -> str:
        parts = [self.summary.rstrip(".…") + ("…" if self.summary.endswith("…") else ".")]
        if self.occasion:
            parts.append(f"Occasion: {self.occasion}.")
        if self.found:
            parts.append("Found what they wanted.")
        elif self.outcome in (None, "not_found"):
            # A visit that showed products, or looked for none, is no visit that failed.
            parts.append("Did not find what they wanted.")
        if self.follow_ups:
            parts.append("Follow-ups: " + "; ".join(f.rstrip(" .") for f in self.follow_ups) + ".")
        return " ".join(parts)


def validate_episode(raw: Any) -> Episode | None:
    """The visit summary a model wrote, screened like a fact: its claims and instructions
    are dropped sentence by sentence and counted, each part is cut to its length, and a
    summary with nothing left is no episode at all."""
    data = _parse_json(raw)
    if not isinstance(data, dict):
        return None
    summary = data.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        return None
    summary, dropped = summary_screen(summary, max_chars=MAX_SUMMARY_CHARS, visit=True)
    occasion = data.get("occasion")
    if isinstance(occasion, str) and occasion.strip():
        occasion, lost = summary_screen(occasion, max_chars=MAX_OCCASION_CHARS, visit=True)
        dropped += lost
    else:
        occasion = None
    follow_ups = data.get("follow_ups") or []
    if not isinstance(follow_ups, list):
        follow_ups = []
    kept_follow_ups = []
    for follow_up in follow_ups:
        if not isinstance(follow_up, str) or not follow_up.strip():
            continue
        text, lost = summary_screen(follow_up, max_chars=MAX_FOLLOW_UP_CHARS, visit=True)
        dropped += lost
        if text:
            kept_follow_ups.append(text)
    if not summary:
        logger.info(
            "The visit summary was dropped whole: every sentence of it was a claim or an instruction"
        )
        return None
    return Episode(
        summary=summary,
        occasion=occasion or None,
        found=data.get("found") is True,
        follow_ups=kept_follow_ups[:MAX_FOLLOW_UPS],
        dropped=dropped,
        outcome=data.get("outcome") if data.get("outcome") in EPISODE_OUTCOMES else None,
    )


async def episode_compose(
    *, turns: list[tuple[str, str]], facts: Sequence[str] = ()
) -> Episode | None:
    """Summarise a closed visit for later ones; None when the model gives nothing usable."""
    try:
        raw = await _complete_json(role="episode", messages=episode_messages(turns, facts=facts))
    except openai.OpenAIError as exc:  # a visit without an episode is still remembered
        model_outages.failed("episode", "closed visits get no summary meanwhile", exc)
        return None
    model_outages.succeeded("episode")
    episode = validate_episode(raw)
    if episode is not None and episode.dropped:
        logger.info(
            "The summary screen dropped %d sentence(s) of a visit summary (claims or instructions)",
            episode.dropped,
        )
    return episode
