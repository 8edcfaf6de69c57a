"""The one place Agent Memory SDK clients are built.

Timeouts are short and the chat path never retries: a dead memory server must cost a
shopper's turn about one second, not the SDK's default thirty with three retries.
"""

from __future__ import annotations

import logging

from agentmemory import AgentMemoryClient, AsyncAgentMemoryClient
from agentmemory.exceptions import AgentMemoryError
from django.conf import settings

logger = logging.getLogger(__name__)


def memory_client_async(*, timeout: float | None = None) -> AsyncAgentMemoryClient:
    return AsyncAgentMemoryClient(
        base_url=settings.AGENT_MEMORY_URL,
        token=settings.AGENT_MEMORY_TOKEN,
        timeout=timeout if timeout is not None else settings.AGENT_MEMORY_TIMEOUT_SECONDS,
        max_retries=0,
    )


def memory_client_sync(*, timeout: float | None = None) -> AgentMemoryClient:
    return AgentMemoryClient(
        base_url=settings.AGENT_MEMORY_URL,
        token=settings.AGENT_MEMORY_TOKEN,
        timeout=timeout if timeout is not None else settings.AGENT_MEMORY_TIMEOUT_SECONDS,
        max_retries=0,
    )


def memory_health_status() -> str:
    """Return "ok" when the memory server answers its health route healthy, else "unavailable"."""
    try:
        with memory_client_sync() as client:
            result = client.health_ping("server")
    except (AgentMemoryError, OSError) as exc:
        logger.info("Agent Memory health check failed: %s", exc)
        return "unavailable"
    server = result.server
    return "ok" if server is not None and server.status == "healthy" else "unavailable"
