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


# The turn's pool of connections to memory. httpx checks every idle connection of the pool
# (a poll of its socket) and counts the idle ones once per idle connection, each time a
# request is queued or finishes: with the SDK's default pool of up to 20 idle and 100 open
# connections that bookkeeping cost a recall more of the app's CPU than parsing its answers.
# A recall sends five requests at once and the embedded server serves eight at a time;
# requests past MAX_CONNECTIONS wait in the pool, as they would at a busy server.
POOL_LIMITS = httpx.Limits(max_connections=16, max_keepalive_connections=8)


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
    _pool_limit(client)
    _async_clients[loop] = (key, client)
    return client


def _pool_limit(client: AsyncAgentMemoryClient) -> None:
    """Give the SDK's transport POOL_LIMITS (the SDK builds its httpx client without limits)
    and note each answer for `memory_answered_within`.

    The replacement keeps everything the SDK set (base URL, headers, timeout, TLS check);
    the SDK's own client has made no connection yet, so dropping it leaks nothing.
    """
    built = client._http._client
    client._http._client = httpx.AsyncClient(
        base_url=built.base_url,
        headers=built.headers,
        timeout=built.timeout,
        verify=client._http.verify,
        limits=POOL_LIMITS,
        event_hooks={"response": [_answer_noted]},
    )


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
