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

from memoryapp.conf import memory_conf

logger = logging.getLogger("memoryapp")

MAX_FACT_CHARS = 160
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)
# Claims of entitlement and instructions are never facts about the shopper, whatever the
# judge says: storing one would let a sentence typed today steer every later answer.
_NOT_A_FACT = re.compile(
    r"\b(discount|%|percent|off\b|free|refund|voucher|coupon|promo|code|entitled|"
    r"ignore|instruction|system prompt|always (?:give|get|answer|say|tell)|must (?:give|say|tell))",
    re.IGNORECASE,
)


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


def validate_facts(raw: Any, *, cap: int | None = None) -> list[str]:
    """Keep only short non-blank strings, de-duplicated, at most cap of them.

    Accepts a JSON array, an object with a "facts" array, or either as JSON text (fenced
    or not). Anything else yields no facts.
    """
    cap = cap if cap is not None else memory_conf().max_facts_per_turn
    data = _parse_json(raw)
    if isinstance(data, dict):
        data = data.get("facts")
    if not isinstance(data, list):
        return []
    facts: list[str] = []
    seen: set[str] = set()
    for item in data:
        if not isinstance(item, str):
            continue
        fact = " ".join(item.split())
        if not fact or len(fact) > MAX_FACT_CHARS or _NOT_A_FACT.search(fact):
            continue
        key = fact.lower().rstrip(".")
        if key in seen:
            continue
        seen.add(key)
        facts.append(fact)
        if len(facts) >= cap:
            break
    return facts


async def _complete_json(*, role: str, messages: list[dict]) -> str | None:
    from llm.factory import chat_client, model_for

    client = chat_client()
    response = await client.chat.completions.create(
        model=model_for(role),
        messages=messages,
        response_format={"type": "json_object"},
        temperature=0,
    )
    return response.choices[0].message.content if response.choices else None


async def facts_judge(*, query: str, answer: str) -> list[str]:
    """Ask the judge which durable facts the shopper stated about themselves."""
    from llm.prompts import judge_messages

    try:
        raw = await _complete_json(role="judge", messages=judge_messages(query, answer))
    except Exception as exc:  # any model failure only means "no facts this turn"
        logger.warning("Fact judge failed; no facts kept from this exchange: %s", exc)
        return []
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
    from llm.prompts import episode_messages

    try:
        raw = await _complete_json(role="episode", messages=episode_messages(turns))
    except Exception as exc:  # a visit without an episode is still remembered
        logger.warning("Episode writer failed; this visit gets no summary: %s", exc)
        return None
    return validate_episode(raw)
