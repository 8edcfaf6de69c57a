"""Guards around memory calls: memory is an enhancement, never a reason to lose an answer.

Each guarded call is bounded by the memory timeout (the SDK's own read-timeout probe of
/health could otherwise add five seconds) and a failure is logged once per outage, not
once per call, with what was lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

import httpx
import pydantic
from agentmemory.exceptions import AgentMemoryError

logger = logging.getLogger("memoryapp")

MEMORY_ERRORS = (
    AgentMemoryError,
    asyncio.TimeoutError,
    OSError,
    httpx.HTTPError,
    pydantic.ValidationError,
)


class OutageLog:
    """Remember which paths are failing so each outage is logged once."""

    def __init__(self) -> None:
        self._down: set[str] = set()

    def failed(self, path: str, lost: str, exc: BaseException) -> None:
        if path in self._down:
            logger.debug("Agent Memory %s still failing (%s lost): %r", path, lost, exc)
            return
        self._down.add(path)
        logger.warning(
            "Agent Memory %s failed; %s lost (logged once until it recovers): %s: %s",
            path,
            lost,
            type(exc).__name__,
            exc,
        )

    def succeeded(self, path: str) -> None:
        if path in self._down:
            self._down.discard(path)
            logger.info("Agent Memory %s recovered", path)

    def reset(self) -> None:
        self._down.clear()


outages = OutageLog()


async def guarded[T](
    call: Awaitable[T], *, path: str, lost: str, timeout: float
) -> tuple[bool, T | None]:
    """Await call within timeout; on a memory failure return (False, None) after logging."""
    try:
        result = await asyncio.wait_for(call, timeout=timeout)
    except MEMORY_ERRORS as exc:
        outages.failed(path, lost, exc)
        return False, None
    outages.succeeded(path)
    return True, result
