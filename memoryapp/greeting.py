"""What a greeting may use of a shopper's memory: whether they came before, and their facts.

One guarded read, bounded like the rest of recall: a memory failure means a plain greeting,
never an error and never a wait.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmemory.exceptions import NotFoundError

from memoryapp.blocks import FACT, block_time
from memoryapp.clients import memory_client_async
from memoryapp.conf import memory_conf
from memoryapp.guard import guarded
from memoryapp.sessions import shopper_absent_noted, shopper_sessions_seen

GREETING_FACT_K = 10


@dataclass(frozen=True)
class GreetingMemory:
    """Earlier visits exist (`returning`); the shopper's fact sentences, newest first."""

    returning: bool
    facts: tuple[str, ...] = ()


async def _greeting_memory(user_id: str) -> GreetingMemory:
    client = memory_client_async()
    try:
        user = await client.get_user(user_id)
    except NotFoundError:
        shopper_absent_noted(user_id=user_id)
        return GreetingMemory(returning=False)
    shopper_sessions_seen(user_id=user_id, session_ids=user.sessions or [])
    if not user.sessions:
        return GreetingMemory(returning=False)
    # Facts of every visit; any of the shopper's sessions can search them all.
    session = await user.get_session(user.sessions[-1])
    found = await session.search_memory(
        filters={"session_ids": "all", "annotations": FACT, "relevant_k": GREETING_FACT_K}
    )
    blocks = sorted(found.memory_blocks, key=block_time, reverse=True)
    return GreetingMemory(
        returning=True,
        facts=tuple(b.fact.strip() for b in blocks if b.fact and b.fact.strip()),
    )


async def greeting_read(*, user_id: str) -> GreetingMemory | None:
    """What the shopper's memory offers a greeting; None when memory could not be read."""
    # Three round trips (user, session, search), bounded together like opening a session.
    ok, memory = await guarded(
        _greeting_memory(user_id),
        path="read",
        lost="the greeting's memory",
        timeout=memory_conf().timeout_seconds * 1.5,
    )
    return memory if ok else None
