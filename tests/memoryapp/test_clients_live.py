"""The turn's SDK client against the live embedded server: what it notes of the answers."""

from __future__ import annotations

import asyncio

from memoryapp import clients
from memoryapp.clients import memory_answered_within, memory_client_async


async def test_an_answer_of_the_server_is_noted_for_this_loop(live_memory, shopper_name):
    loop = asyncio.get_running_loop()
    clients._answered_at.pop(loop, None)
    assert not memory_answered_within(5.0)
    await memory_client_async().health_ping("server")
    assert memory_answered_within(5.0)
    # An answer noted a second ago is not one of the last half second (no waiting needed).
    clients._answered_at[loop] = loop.time() - 1.0
    assert not memory_answered_within(0.5)
    assert memory_answered_within(2.0)


async def test_a_burst_of_calls_on_the_linear_sweep_pool_all_answer(live_memory, shopper_name):
    client = memory_client_async()
    pool = client._http._client._transport._pool
    assert isinstance(pool, clients._LinearSweepPool)
    results = await asyncio.gather(*(client.health_ping("server") for _ in range(30)))
    assert all(r.server is not None and r.server.status == "healthy" for r in results)
    # Back to the SDK's keep-alive bound once the burst is over, as httpcore's own pool does.
    assert len(pool._connections) <= pool._max_keepalive_connections
