"""Two rules of what memory writes, against the live embedded server through the SDK.

A dated session (the presenter's "this visit was in January") dates what it stores, and
never its expiry: a turn is kept a retention period from when it was written. And the
server takes an exchange or facts in one request, never both: the policy writes facts in
their own request for it, so a request that mixes them is refused and stores nothing.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from agentmemory import AddMemoryResponse, ChatMessage, ValidationError
from asgiref.sync import sync_to_async

from memoryapp.recall import memories_recall
from memoryapp.recording import turn_record
from memoryapp.selectors import records_list
from memoryapp.sessions import session_open

pytestmark = pytest.mark.asyncio


async def _listed(memory) -> list:
    page = await memory.resource.list_memories(limit=50, offset=0)
    return list(page.memory_blocks)


async def test_a_dated_sessions_turn_expires_a_retention_after_it_was_written(
    live_memory, shopper_name
):
    memory = await session_open(
        user_id=shopper_name,
        display_name="Tess",
        session_id=None,
        session_date=date(2026, 1, 5),
        retention="1h",
    )
    written = datetime.now(UTC)
    [block_id] = await turn_record(
        memory=memory, query="a linen shirt for summer", answer="Here are two."
    )
    again = await session_open(
        user_id=shopper_name, display_name="Tess", session_id=memory.session_id
    )
    # Dated: the exchange speaks for January. Expiring: an hour from now, not from January.
    recall = await memories_recall(memory=again, message="linen shirt", turn_count=1)
    assert [item.block_id for item in recall.items] == [block_id]
    page = await sync_to_async(records_list)(user_id=shopper_name, limit=50)
    (record,) = [r for r in page.records if r.block_id == block_id]
    assert record.created_at.startswith("2026-01-05")
    expires = datetime.fromisoformat(record.expires_at)
    assert written + timedelta(minutes=59) < expires < written + timedelta(minutes=61)

    live_memory.advance(59 * 60)
    try:
        assert [b.block_id for b in await _listed(again)] == [block_id]
        live_memory.advance(2 * 60)
        assert await _listed(again) == []
    finally:
        live_memory.advance(-61 * 60)


async def test_the_server_refuses_an_exchange_and_facts_in_one_request_and_stores_neither(
    live_memory, shopper_name
):
    memory = await session_open(user_id=shopper_name, display_name="Tess", session_id=None)
    resource = memory.resource
    message = ChatMessage(user_content="I'm a size M", assistant_content="Noted.")
    # The SDK refuses the mix before sending it ...
    with pytest.raises(ValidationError, match="cannot be provided together"):
        await resource.add_memory(messages=[message], facts=["The shopper wears size M."])
    # ... and the server refuses it when a client sends it anyway (the SDK's own transport).
    payload = {
        "messages": [{"user_content": message.user_content, "assistant_content": "Noted."}],
        "facts": ["The shopper wears size M."],
        "annotations": {"type": "turn"},
        "async_processing": True,
    }
    with pytest.raises(ValidationError, match="messages and facts cannot be sent together"):
        await resource._http.post(
            f"{resource._base_path}/memory", response_model=AddMemoryResponse, json=payload
        )
    assert await _listed(memory) == []
    # The same exchange and fact, each in its own request, are both kept.
    await resource.add_memory(messages=[message], annotations={"type": "turn"})
    await resource.add_memory(facts=["The shopper wears size M."], annotations={"type": "fact"})
    kept = await _listed(memory)
    assert sorted((b.fact or b.message.user_content) for b in kept) == [
        "I'm a size M",
        "The shopper wears size M.",
    ]
