"""The one place Agent Memory SDK clients are built.

Timeouts are short and the chat path never retries: a dead memory server must cost a
shopper's turn about one second, not the SDK's default thirty with three retries.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

import httpx
from agentmemory import AgentMemoryClient, AsyncAgentMemoryClient, AsyncUserResource
from agentmemory.exceptions import AgentMemoryError
from django.conf import settings

logger = logging.getLogger(__name__)

# An httpx AsyncClient belongs to the event loop it first ran on, so keep one per loop.
_async_clients: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, tuple[tuple, AsyncAgentMemoryClient]
] = weakref.WeakKeyDictionary()


# Per event loop: when memory last answered a request of this loop's client (loop time).
_answered_at: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, float] = (
    weakref.WeakKeyDictionary()
)


async def _answer_noted(response: httpx.Response) -> None:
    loop = asyncio.get_running_loop()
    _answered_at[loop] = loop.time()


def memory_answered_within(seconds: float) -> bool:
    """Whether memory answered any request of this loop in the last `seconds` (any status).

    A server that answers others is up and busy; a hung one answers no one.
    """
    loop = asyncio.get_running_loop()
    answered = _answered_at.get(loop)
    return answered is not None and loop.time() - answered <= seconds


def _transport_timeout() -> float:
    # The transport allows the slowest call; each guarded call bounds itself more tightly.
    return max(settings.AGENT_MEMORY_TIMEOUT_SECONDS, settings.AGENT_MEMORY_WRITE_TIMEOUT_SECONDS)


def _client_key() -> tuple:
    return (settings.AGENT_MEMORY_URL, settings.AGENT_MEMORY_TOKEN, _transport_timeout())


def memory_client_async() -> AsyncAgentMemoryClient:
    """The running loop's SDK client, rebuilt when the memory settings change (tests do)."""
    loop = asyncio.get_running_loop()
    key = _client_key()
    cached = _async_clients.get(loop)
    if cached is not None and cached[0] == key:
        return cached[1]
    client = AsyncAgentMemoryClient(
        base_url=settings.AGENT_MEMORY_URL,
        token=settings.AGENT_MEMORY_TOKEN,
        timeout=_transport_timeout(),
        max_retries=0,
    )
    _answers_noted(client)
    _async_clients[loop] = (key, client)
    return client


def _answers_noted(client: AsyncAgentMemoryClient) -> None:
    """Note each answer the client gets for `memory_answered_within`.

    The SDK offers no hook of its own, so it goes on the SDK's httpx client; the client's
    pool stays as the SDK builds it. (A smaller pool saved a recall some of httpx's
    bookkeeping, but under 50 shoppers capping it at 16 connections let slow writes after
    `done` hold every one while session opens queued behind them, and keeping 8 idle
    instead of 20 ran twice as long: see docs/benchmarks.md.)
    """
    client._http._client.event_hooks["response"].append(_answer_noted)


def memory_user_async(username: str) -> AsyncUserResource:
    """A handle on the shopper's memory user without fetching it: saves a round trip.

    The SDK offers no unfetched handle, so one is built on the loop's client's transport.
    A call through it on a user that does not exist answers NotFoundError.
    """
    return AsyncUserResource(memory_client_async()._http, username)


def memory_client_sync(*, timeout: float | None = None) -> AgentMemoryClient:
    """A client for management commands and admin pages; the caller closes it."""
    return AgentMemoryClient(
        base_url=settings.AGENT_MEMORY_URL,
        token=settings.AGENT_MEMORY_TOKEN,
        timeout=timeout if timeout is not None else settings.AGENT_MEMORY_TIMEOUT_SECONDS,
        max_retries=0,
    )


def memory_health_status(*, timeout: float | None = None) -> str:
    """Return "ok" when the memory server answers its health route healthy, else "unavailable"."""
    try:
        with memory_client_sync(timeout=timeout) as client:
            result = client.health_ping("server")
    except (AgentMemoryError, OSError) as exc:
        logger.info("Agent Memory health check failed: %s", exc)
        return "unavailable"
    server = result.server
    return "ok" if server is not None and server.status == "healthy" else "unavailable"
