"""Build SDK MemoryBlock objects for pure rendering tests."""

from __future__ import annotations

import itertools

from agentmemory import ChatMessage, MemoryBlock

from memoryapp.blocks import EPISODE, FACT, TURN

_ids = itertools.count(1)


def turn(
    query: str,
    answer: str,
    *,
    at: str,
    session: str = "session1",
    summary=None,
    contexts=None,
    score=None,
) -> MemoryBlock:
    return MemoryBlock(
        block_id=f"b{next(_ids)}",
        user_id="ann",
        session_id=session,
        message=ChatMessage(user_content=query, assistant_content=answer),
        ingested_at=at,
        created_at=at,
        annotations=dict(TURN),
        summary=summary,
        contexts=contexts,
        rel_score=score,
    )


def fact(
    text: str, *, at: str, session: str = "session1", created: str | None = "same"
) -> MemoryBlock:
    return MemoryBlock(
        block_id=f"b{next(_ids)}",
        user_id="ann",
        session_id=session,
        fact=text,
        ingested_at=at,
        created_at=at if created == "same" else created,
        annotations=dict(FACT),
    )


def episode(text: str, *, at: str, session: str, resolved: bool) -> MemoryBlock:
    return MemoryBlock(
        block_id=f"b{next(_ids)}",
        user_id="ann",
        session_id=session,
        fact=text,
        ingested_at=at,
        created_at=at,
        annotations={**EPISODE, "resolved": "true" if resolved else "false"},
    )
