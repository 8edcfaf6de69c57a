"""Guards around memory calls: memory is an enhancement, never a reason to lose an answer.

Every memory failure is caught in one place, `outage_translated`: it logs once per outage
and path ("session", "read", "write") with what was lost, logs again when that path next
succeeds, and turns the failure into MemoryUnavailable. A 4xx answer (the server up and
refusing one request: 400, 404, 409, 422, ...) is no outage: it becomes MemoryRefused, a
MemoryUnavailable logged at info level and never as an outage (401, 403, 408 and 429, which
mean memory cannot be used for now, still count as one). `guarded` builds on it for the
turn's own calls, which carry on without memory instead of raising; each is bounded by the
memory timeout (the SDK's own read-timeout probe of /health could otherwise add seconds),
the recall's given some grace past it while the server is answering others. A call given
up on raises MemoryTimeout, which names the call, its bound and the time it took, so the
outage's one log line says what missed and by how much.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager

import httpx
import pydantic
from agentmemory.exceptions import AgentMemoryError

from memoryapp.clients import memory_answered_within
from memoryapp.types import MemoryRefused, MemoryUnavailable

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


class MemoryTimeout(TimeoutError):
    """A memory call given up on past its bound: what the outage's log line needs."""

    def __init__(self, call: str, *, bound: str, taken: float) -> None:
        super().__init__(f"{call} had no answer within {bound}; given up after {taken:.2f} s")
        self.call, self.bound, self.taken = call, bound, taken


@contextmanager
def timeouts_named(call: str, *, bound: str) -> Iterator[None]:
    """Turn a bare TimeoutError inside the block into a MemoryTimeout naming call and bound."""
    started = time.monotonic()
    try:
        yield
    except MemoryTimeout:
        raise
    except TimeoutError as exc:
        raise MemoryTimeout(call, bound=bound, taken=time.monotonic() - started) from exc


def bound_described(timeout: float, grace: float = 0.0) -> str:
    if grace <= 0:
        return f"its bound of {timeout:.2f} s"
    return (
        f"its bound of {timeout:.2f} s (up to {timeout + grace:.2f} s while memory answered others)"
    )


class OutageLog:
    """Remember which paths are failing so each outage is logged once, and its end once.

    The memory paths use the default wording; the model roles (`memoryapp.judge`) their own.
    """

    def __init__(
        self,
        *,
        failing: str = "Agent Memory %s failed; %s lost (logged once until it recovers): %s: %s",
        still: str = "Agent Memory %s still failing (%s lost): %r",
        recovered: str = "Agent Memory %s recovered",
    ) -> None:
        self._down: set[str] = set()
        self._failing, self._still, self._recovered = failing, still, recovered

    def failed(self, path: str, lost: str, exc: BaseException) -> None:
        if path in self._down:
            logger.debug(self._still, path, lost, exc)
            return
        self._down.add(path)
        logger.warning(self._failing, path, lost, type(exc).__name__, exc)

    def succeeded(self, path: str) -> None:
        if path in self._down:
            self._down.discard(path)
            logger.info(self._recovered, path)

    def reset(self) -> None:
        self._down.clear()


outages = OutageLog()

# 4xx answers that still mean memory cannot be used: a token it refuses (401, 403), a
# request it timed out on (408), an overloaded server (429). Any other 4xx is a refusal of
# this one request by a server that is up.
UNUSABLE_CLIENT_ERRORS = frozenset({401, 403, 408, 429})


def memory_refusal(exc: BaseException) -> bool:
    """Whether exc is the server refusing one request (a 4xx), not an outage."""
    status = getattr(exc, "status_code", None)
    return (
        isinstance(exc, AgentMemoryError)
        and isinstance(status, int)
        and 400 <= status < 500
        and status not in UNUSABLE_CLIENT_ERRORS
    )


@contextmanager
def outage_translated(*, path: str, lost: str) -> Iterator[None]:
    """Raise MemoryUnavailable for a memory failure inside the block, logged once per outage.

    Errors the block handles itself (a NotFoundError meaning "nothing there") never reach
    this; leaving the block normally marks the path as working again.
    """
    try:
        yield
    except MEMORY_ERRORS as exc:
        if memory_refusal(exc):
            # The server answered: the path works, this request was wrong.
            logger.info("Agent Memory %s refused a request (for %s): %s", path, lost, exc)
            outages.succeeded(path)
            raise MemoryRefused(str(exc)) from exc
        outages.failed(path, lost, exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc
    outages.succeeded(path)


async def guarded[T](
    call: Awaitable[T],
    *,
    path: str,
    lost: str,
    timeout: float,
    grace: float = 0.0,
    name: str | None = None,
) -> tuple[bool, T | None]:
    """Await call within timeout; on a memory failure return (False, None) after logging.

    With `grace`, a call past its timeout goes on, up to `grace` seconds more, while memory
    answers other requests (`while_answering`). `name` is what a timeout's log line calls
    it (by default, the call for what is lost).
    """
    result, error = await attempted(
        call, timeout=timeout, grace=grace, name=name or f"the call for {lost}"
    )
    return outcome_noted(path=path, lost=lost, error=error), result


async def attempted[T](
    call: Awaitable[T], *, timeout: float, grace: float = 0.0, name: str = "a memory call"
) -> tuple[T | None, BaseException | None]:
    """`guarded` without the logging: (result, None), or (None, the memory failure).

    For calls whose outcome may not count (an early recall thrown away when the session
    turns out to be another): the caller notes it with `outcome_noted` once it does. A call
    past its bound fails with a MemoryTimeout that says `name`, the bound and the time taken.
    """
    if grace > 0:
        bounded = while_answering(call, timeout=timeout, grace=grace)
    else:
        bounded = asyncio.wait_for(call, timeout=timeout)
    try:
        with timeouts_named(name, bound=bound_described(timeout, grace)):
            return await awaited_apart(bounded, within=timeout * (1 + BACKSTOP) + grace), None
    except (*MEMORY_ERRORS, MemoryUnavailable) as exc:
        return None, exc


# A memory call's bound is kept by cancelling it. It runs as a task of its own, and its
# caller waits one timeout past the bound at the most before it goes on without it: a call
# that swallows its cancellation somewhere in the HTTP stack below (a library's shielded
# clean-up, say) then costs the turn one timeout more, never its answer. A call cancelled by
# anything but its bound or its caller counts as timed out too, so the turn is never lost
# with it.
BACKSTOP = 1.0


async def awaited_apart[T](call: Awaitable[T], *, within: float) -> T:
    """Await call in a task of its own for at most `within` seconds.

    Raises TimeoutError past that (the task cancelled and left to end on its own) or when
    the task was cancelled by anything but this caller; a caller cancelled meanwhile
    cancels the task too.
    """
    task = asyncio.ensure_future(call)
    task.add_done_callback(_outcome_retrieved)
    try:
        await asyncio.wait({task}, timeout=within)
    except BaseException:
        task.cancel()
        raise
    if not task.done():
        task.cancel()
        raise TimeoutError(f"a memory call outlived its bound of {within:.2f} s")
    if task.cancelled():
        raise TimeoutError("a memory call was cancelled by something else")
    return task.result()


def _outcome_retrieved(task: asyncio.Future) -> None:
    # A call given up on still ends, in an error or a cancellation that nobody awaits.
    if not task.cancelled():
        task.exception()


def outcome_noted(*, path: str, lost: str, error: BaseException | None) -> bool:
    """Log a call's failure (once per outage) or its path's recovery; True if it succeeded."""
    if error is None:
        outages.succeeded(path)
        return True
    if memory_refusal(error):
        logger.info("Agent Memory %s refused a request (for %s): %s", path, lost, error)
        outages.succeeded(path)
        return False
    if not isinstance(error, MemoryUnavailable):  # that one was logged where it was raised
        outages.failed(path, lost, error)
    return False


# How often a call past its timeout looks again, and how recent an answer must be, as a
# share of the timeout.
ANSWERING_STEP = 0.5


async def while_answering[T](call: Awaitable[T], *, timeout: float, grace: float) -> T:
    """Await call for timeout, then on up to grace more while memory answers others.

    With the cores saturated by other shoppers' turns the server is up and answers late
    (the call's own answer may be waiting for the event loop); a hung server answers no one,
    so it still costs one timeout, and at most one step more when it hung just after an
    answer. Raises TimeoutError.
    """
    loop = asyncio.get_running_loop()
    step = timeout * ANSWERING_STEP
    cap = loop.time() + timeout + grace
    async with asyncio.timeout(cap) as scope:
        check: asyncio.TimerHandle | None = None

        def end_unless_answering() -> None:
            nonlocal check
            now = loop.time()
            if not memory_answered_within(step):
                scope.reschedule(now)
            elif now + step < cap:
                check = loop.call_at(now + step, end_unless_answering)

        check = loop.call_at(loop.time() + timeout, end_unless_answering)
        try:
            return await call
        finally:
            check.cancel()
