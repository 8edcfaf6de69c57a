"""The turn's SDK client against the live embedded server: its pool, and what it notes."""

from __future__ import annotations

import asyncio

from memoryapp.clients import POOL_LIMITS, memory_answered_within, memory_client_async
from memoryapp.services import session_open


async def test_a_burst_of_requests_leaves_a_small_pool_of_idle_connections(
    live_memory, shopper_name
):
    memory = await session_open(username=shopper_name, display_name="T", session_id=None)
    await asyncio.gather(
        *(memory.resource.search_memory(query=f"boots {i}", filters={}) for i in range(30))
    )
    # Every request checks each idle connection, so what stays idle costs each later request.
    pool = memory_client_async()._http._client._transport._pool
    assert 0 < len(pool.connections) <= POOL_LIMITS.max_keepalive_connections


async def test_an_answer_of_the_server_is_noted_for_this_loop(live_memory, shopper_name):
    client = memory_client_async()
    await client.health_ping("server")
    assert memory_answered_within(5.0)
    await asyncio.sleep(0.3)
    assert not memory_answered_within(0.1)
