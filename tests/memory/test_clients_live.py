"""The turn's SDK client against the live embedded server: what it notes of the answers."""

from __future__ import annotations

import asyncio

from memoryapp.clients import memory_answered_within, memory_client_async


async def test_an_answer_of_the_server_is_noted_for_this_loop(live_memory, shopper_name):
    client = memory_client_async()
    await client.health_ping("server")
    assert memory_answered_within(5.0)
    await asyncio.sleep(0.3)
    assert not memory_answered_within(0.1)
