"""Memory calls keep their bounds even when the stack below loses a cancellation."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from memoryapp.guard import attempted

pytestmark = pytest.mark.asyncio


async def _deaf(seconds: float = 2.0) -> str:
    """A call that ignores being cancelled and answers late (an HTTP stack losing it)."""
    for _ in range(int(seconds / 0.1)):
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.1)
    return "late"


@pytest.mark.parametrize("grace", [0.0, 0.05])
async def test_a_call_that_loses_its_cancellation_is_given_up_past_its_bound(grace):
    result, error = await attempted(_deaf(), timeout=0.05, grace=grace)
    assert result is None and isinstance(error, TimeoutError)


async def test_a_call_cancelled_by_something_else_fails_without_cancelling_its_caller():
    async def cancelled() -> None:
        raise asyncio.CancelledError

    result, error = await attempted(cancelled(), timeout=1.0)
    assert result is None and isinstance(error, TimeoutError)
    assert asyncio.current_task().cancelling() == 0


async def test_a_caller_stopped_meanwhile_stops_its_call():
    started, ended = asyncio.Event(), asyncio.Event()

    async def call() -> None:
        started.set()
        try:
            await asyncio.sleep(10)
        finally:
            ended.set()

    caller = asyncio.create_task(attempted(call(), timeout=5.0))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.wait_for(ended.wait(), timeout=2)


async def test_a_call_within_its_bound_returns_its_result():
    async def quick() -> str:
        await asyncio.sleep(0)
        return "answer"

    assert await attempted(quick(), timeout=1.0) == ("answer", None)
