"""Guards around memory calls: memory is an enhancement, never a reason to lose an answer.

Every memory failure is caught in one place, `outage_translated`: it logs once per outage
and path ("session", "read", "write") with what was lost, logs again when that path next
succeeds, and turns the failure into MemoryUnavailable. `guarded` builds on it for the
turn's own calls, which carry on without memory instead of raising; each is bounded by the
memory timeout (the SDK's own read-timeout probe of /health could otherwise add seconds).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager

import httpx
import pydantic
from agentmemory.exceptions import AgentMemoryError

from memoryapp.types import MemoryUnavailable

logger = logging.getLogger("memoryapp")

MEMORY_ERRORS = (
    AgentMemoryError,
    asyncio.TimeoutError,
    OSError,
    httpx.HTTPError,
    # Not an HTTPError: a malformed AGENT_MEMORY_URL, or a path the SDK could not build.
    httpx.InvalidURL,
    pydantic.ValidationError,
)


class OutageLog:
    """Remember which paths are failing so each outage is logged once, and its end once."""

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


@contextmanager
def outage_translated(*, path: str, lost: str) -> Iterator[None]:
    """Raise MemoryUnavailable for a memory failure inside the block, logged once per outage.

    Errors the block handles itself (a NotFoundError meaning "nothing there") never reach
    this; leaving the block normally marks the path as working again.
    """
    try:
        yield
    except MEMORY_ERRORS as exc:
        outages.failed(path, lost, exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc
    outages.succeeded(path)


async def guarded[T](
    call: Awaitable[T], *, path: str, lost: str, timeout: float
) -> tuple[bool, T | None]:
    """Await call within timeout; on a memory failure return (False, None) after logging."""
    try:
        with outage_translated(path=path, lost=lost):
            result = await asyncio.wait_for(call, timeout=timeout)
    except MemoryUnavailable:
        return False, None
    return True, result
