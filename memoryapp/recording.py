"""Recording an exchange: its turn block, its judged facts, and retiring the facts replaced.

Writes are guarded: a failed write costs the exchange's memory, never the answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agentmemory import AsyncSessionResource

from llm.fact_schema import slot_from_sentence
from memoryapp.blocks import FACT, SUPERSEDED, TURN, clock, created_at_for
from memoryapp.cleaning import text_clean
from memoryapp.conf import memory_conf
from memoryapp.consolidation import (
    FactsPlan,
    facts_plan,
    superseded_annotations,
)
from memoryapp.guard import guarded
from memoryapp.judge import JudgedFact, answer_question, judge_hosted, turn_judge
from memoryapp.sessions import OpenSession
from memoryapp.types import BlockIds, Remembered

# The annotation that carries a write's idempotency key: the chat turn's id.
TURN_KEY = "turn_key"


async def turn_record(
    *, memory: OpenSession, query: str, answer: str, key: str | None = None
) -> list[str]:
    """Store the exchange as one turn block; it inherits the session's retention.

    With `key` (the chat turn's id) the block carries it, so a write whose answer was lost
    (a timeout while the server was frozen) is recognised afterwards instead of written
    twice: after a failed add the key is looked up, and a block found is the exchange.
    """
    conf = memory_conf()
    annotations = {**TURN, TURN_KEY: key} if key else TURN
    ok, response = await guarded(
        memory.resource.add_memory(
            messages=[{"user_content": text_clean(query), "assistant_content": text_clean(answer)}],
            annotations=annotations,
            context_required=True,
            created_at=created_at_for(memory.info.session_date),
        ),
        path="write",
        lost="this exchange",
        timeout=conf.write_timeout_seconds,
    )
    if ok and response:
        return list(response.block_ids)
    if key:
        return (await keyed_blocks_find(memory=memory, key=key)).get("turn", [])
    return []


async def keyed_blocks_find(*, memory: OpenSession, key: str) -> dict[str, list[str]]:
    """The blocks of this session written under idempotency key `key`, by type ("turn",
    "fact"); {} when there are none or memory cannot say."""
    conf = memory_conf()
    ok, found = await guarded(
        memory.resource.search_memory(filters={"annotations": {TURN_KEY: key}}),
        path="read",
        lost="recognising a write that answered late",
        timeout=conf.write_timeout_seconds,
    )
    by_type: dict[str, list[str]] = {}
    for block in found.memory_blocks if ok and found else []:
        kind = (block.annotations or {}).get("type", "")
        by_type.setdefault(kind, []).append(block.block_id)
    return by_type


async def facts_record(*, memory: OpenSession, facts: Sequence[JudgedFact | str]) -> list[str]:
    """Store judged facts, consolidated with the shopper's current facts (consolidation.py).

    Facts are written in their own requests (the server rejects messages and facts in one)
    and outlive the session (TTL 0 by default). Returns the ids of the facts stored; a
    restatement stores nothing. With the current facts unreadable, the facts are stored
    as they are: a copy is collapsed at recall, a lost fact is lost for good.
    """
    stored, _ = await _facts_store(memory=memory, facts=facts)
    return [block_id for block_id, _ in stored]


async def _facts_store(
    *,
    memory: OpenSession,
    facts: Sequence[JudgedFact | str],
    protected: frozenset[str] = frozenset(),
) -> tuple[list[tuple[str, str]], int]:
    """facts_record's work: (block id, sentence) of each fact stored, and how many of the
    facts to store failed to be written."""
    judged = [
        f if isinstance(f, JudgedFact) else JudgedFact(f, slot_from_sentence(f)) for f in facts
    ]
    if not judged:
        return [], 0
    conf = memory_conf()
    created_at = created_at_for(memory.info.session_date)
    ok, current = await guarded(
        memory.resource.search_memory(filters={"session_ids": "all", "annotations": FACT}),
        path="read",
        lost="consolidating this exchange's facts",
        timeout=conf.write_timeout_seconds,
    )
    stated_at = datetime.fromisoformat(created_at) if created_at else clock()
    plan = facts_plan(
        new=judged,
        current=list(current.memory_blocks) if ok and current else [],
        stated_at=stated_at,
        protected=protected,
    )
    stored = await asyncio.gather(
        *(_fact_add(memory, fact, created_at=created_at) for fact in plan.store)
    )
    await _facts_retire(memory, plan, stored_ids=list(stored))
    kept = [
        (block_id, fact.text) for block_id, fact in zip(stored, plan.store, strict=True) if block_id
    ]
    return kept, len(plan.store) - len(kept)


async def _fact_add(memory: OpenSession, fact: JudgedFact, *, created_at: str | None) -> str | None:
    conf = memory_conf()
    ok, response = await guarded(
        memory.resource.add_memory(
            facts=[fact.text],
            annotations={**FACT, **fact.annotations},
            memory_block_ttl=conf.fact_ttl_seconds,
            context_required=False,
            created_at=created_at,
        ),
        path="write",
        lost="facts from this exchange",
        timeout=conf.write_timeout_seconds,
    )
    return response.block_ids[0] if ok and response and response.block_ids else None


async def _facts_retire(
    memory: OpenSession, plan: FactsPlan, *, stored_ids: list[str | None]
) -> None:
    """Copy replaced facts as superseded, then delete them and stale copies where they live."""
    conf = memory_conf()
    doomed: list[Any] = list(plan.duplicates)
    for replaced in plan.replaced:
        by = stored_ids[replaced.by] if isinstance(replaced.by, int) else replaced.by
        if by is None:
            continue  # its replacement was not stored: it stays current
        block = replaced.block
        ok, _ = await guarded(
            memory.resource.add_memory(
                facts=[block.fact],
                annotations=superseded_annotations(block, by=by),
                memory_block_ttl=conf.fact_ttl_seconds,
                context_required=False,
                created_at=block.created_at or block.ingested_at,
            ),
            path="write",
            lost="the superseded copy of a replaced fact",
            timeout=conf.write_timeout_seconds,
        )
        if ok:
            doomed.append(block)  # only once its superseded copy is safe
    for fact, by in plan.born_superseded:
        await guarded(
            memory.resource.add_memory(
                facts=[fact.text],
                annotations={
                    **fact.annotations,
                    "type": SUPERSEDED,
                    "superseded_by": by,
                    "stated_in": memory.session_id,
                },
                memory_block_ttl=conf.fact_ttl_seconds,
                context_required=False,
                created_at=created_at_for(memory.info.session_date),
            ),
            path="write",
            lost="a fact older than the current one",
            timeout=conf.write_timeout_seconds,
        )
    by_session: dict[str, list[str]] = {}
    for block in doomed:
        by_session.setdefault(block.session_id, []).append(block.block_id)
    for session_id, block_ids in by_session.items():
        # Facts of ended sessions: deleting is allowed there, updating is not.
        session = AsyncSessionResource(memory.resource._http, memory.user_id, session_id)
        await guarded(
            session.delete_memory(block_ids),
            path="write",
            lost="retiring replaced facts",
            timeout=conf.write_timeout_seconds,
        )


async def _question_before(memory: OpenSession) -> str | None:
    """The assistant's last question in this visit's newest exchange, or None."""
    if memory.info.created:
        return None  # a session minted this turn holds no earlier exchange
    ok, page = await guarded(
        memory.resource.list_memories(limit=QUESTION_LOOKBACK_BLOCKS, offset=0),
        path="read",
        lost="the question this message answers",
        timeout=memory_conf().write_timeout_seconds,
    )
    blocks = list(page.memory_blocks) if ok and page else []
    message = next((b.message for b in blocks if getattr(b, "message", None) is not None), None)
    return answer_question(message.assistant_content or "") if message else None


# The newest blocks read for that question: the exchange, the facts it stored and the
# superseded copies of the facts those replaced.
QUESTION_LOOKBACK_BLOCKS = 16

# The writes a turn names when they fail (`memory.added`'s `failed`).
FAILED_TURN, FAILED_FACTS = "turn", "facts"


async def exchange_remember(
    *,
    memory: OpenSession,
    query: str,
    answer: str,
    key: str | None = None,
    protected: frozenset[str] = frozenset(),
) -> Remembered:
    """After the answer is sent: record the turn, judge it for facts, record those.

    `key`, the chat turn's id, goes with the turn's block as its idempotency key;
    `protected`, the facts the shopper was told were saved, are never deleted as copies.
    """
    query, answer = text_clean(query), text_clean(answer)
    # What "yes, in M" answers: the last question of the answer before this message. Read
    # before this exchange is written, so it is never this turn's own answer.
    question = await _question_before(memory) if judge_hosted() else None
    turn_ids, judged = await asyncio.gather(
        turn_record(memory=memory, query=query, answer=answer, key=key),
        turn_judge(query=query, question=question),
    )
    stored, lost = await _facts_store(memory=memory, facts=judged.facts, protected=protected)
    failed = ([FAILED_TURN] if not turn_ids else []) + ([FAILED_FACTS] if lost else [])
    return Remembered(
        ids=BlockIds(turn=turn_ids, fact=[block_id for block_id, _ in stored]),
        facts=[text for _, text in stored],
        failed=failed,
        screened_out=judged.dropped,
    )
