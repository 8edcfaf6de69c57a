"""The one place Agent Memory SDK clients are built.

Timeouts are short and the chat path never retries: a dead memory server must cost a
shopper's turn about one second, not the SDK's default thirty with three retries.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import weakref

import httpcore
import httpx
from agentmemory import (
    AgentMemoryClient,
    AsyncAgentMemoryClient,
    AsyncSessionResource,
    AsyncUserResource,
)
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
    _linear_sweep(client)
    _async_clients[loop] = (key, client)
    return client


# How often the pool's sweep asks every idle connection whether it has expired.
IDLE_CHECK_SECONDS = 0.5


class _LinearSweepPool(httpcore.AsyncConnectionPool):
    """httpcore's connection pool with a cheaper sweep; the same connections are used.

    Every time a request is queued or finishes, httpcore 1.0.9's pool sweeps its
    connections: for each idle one it polls the socket (through anyio's attribute lookup,
    which rebuilds a table of the socket's attributes each time) and counts all connections
    by building a list. With the SDK's 20 kept-alive connections that is 20 polls and 400
    calls a sweep, about three sweeps a request: 40 % of a recall's CPU in the app
    (docs/benchmarks-history.md, "The recall path, made cheaper"). This sweep counts with
    `len` (what the list's length always was) and asks idle connections whether they
    expired at most every IDLE_CHECK_SECONDS; an idle connection is also asked just
    before it is handed a request, so a connection the
    server closed or that outlived its keep-alive is never used. Otherwise what is closed,
    reused or created is what httpcore's own sweep decides.
    """

    _idle_checked_at = -math.inf

    def _assign_requests_to_connections(self) -> list[httpcore.AsyncConnectionInterface]:
        closing: list[httpcore.AsyncConnectionInterface] = []
        now = _now()
        check_idle = now - self._idle_checked_at >= IDLE_CHECK_SECONDS
        if check_idle:
            self._idle_checked_at = now
        for connection in list(self._connections):
            if connection.is_closed():
                self._connections.remove(connection)
            elif ((check_idle or not connection.is_idle()) and connection.has_expired()) or (
                connection.is_idle() and len(self._connections) > self._max_keepalive_connections
            ):
                self._connections.remove(connection)
                closing.append(connection)
        for pool_request in [request for request in self._requests if request.is_queued()]:
            origin = pool_request.request.url.origin
            available = self._available(origin, closing)
            if available is not None:
                pool_request.assign_to_connection(available)
                continue
            if len(self._connections) >= self._max_connections:
                idle = next((c for c in self._connections if c.is_idle()), None)
                if idle is None:
                    continue  # the request waits for a connection to come free
                self._connections.remove(idle)
                closing.append(idle)
            connection = self.create_connection(origin)
            self._connections.append(connection)
            pool_request.assign_to_connection(connection)
        return closing

    def _available(
        self, origin: httpcore.Origin, closing: list[httpcore.AsyncConnectionInterface]
    ) -> httpcore.AsyncConnectionInterface | None:
        """The first connection that can take a request to `origin` now, expired ones closed."""
        for connection in list(self._connections):
            if not (connection.can_handle_request(origin) and connection.is_available()):
                continue
            if connection.is_idle() and connection.has_expired():
                self._connections.remove(connection)
                closing.append(connection)
                continue
            return connection
        return None


def _now() -> float:
    return time.monotonic()


# The sweep above is written against this release's pool; another one keeps its own.
_SWEEP_FOR_HTTPCORE = "1.0.9"


def _linear_sweep(client: AsyncAgentMemoryClient) -> None:
    pool = getattr(client._http._client._transport, "_pool", None)
    if httpcore.__version__ == _SWEEP_FOR_HTTPCORE and type(pool) is httpcore.AsyncConnectionPool:
        # Same state, same class layout: only the sweep method differs.
        pool.__class__ = _LinearSweepPool


def _answers_noted(client: AsyncAgentMemoryClient) -> None:
    """Note each answer the client gets for `memory_answered_within`.

    The SDK offers no hook of its own, so it goes on the SDK's httpx client; the client's
    pool stays as the SDK builds it. (A smaller pool saved a recall some of httpx's
    bookkeeping, but under 50 shoppers capping it at 16 connections let slow writes after
    `done` hold every one while session opens queued behind them, and keeping 8 idle
    instead of 20 ran twice as long: see docs/benchmarks-history.md, "Where a recall's CPU goes".)
    """
    client._http._client.event_hooks["response"].append(_answer_noted)


def memory_user_async(user_id: str) -> AsyncUserResource:
    """A handle on the shopper's memory user without fetching it: saves a round trip.

    The SDK offers no unfetched handle, so one is built on the loop's client's transport.
    A call through it on a user that does not exist answers NotFoundError.
    """
    return AsyncUserResource(memory_client_async()._http, user_id)


def memory_session_async(user_id: str, session_id: str) -> AsyncSessionResource:
    """A handle on one of the shopper's sessions without fetching it (see memory_user_async).

    Calls through it answer NotFoundError when the session does not exist.
    """
    return AsyncSessionResource(memory_client_async()._http, user_id, session_id)


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
