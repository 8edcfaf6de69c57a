"""Memory calls keep their bounds even when the stack below loses a cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from memoryapp.guard import MemoryTimeout, attempted, guarded, outages

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


async def test_an_outage_log_names_the_call_its_bound_and_the_time_taken(caplog):
    outages.reset()
    caplog.set_level(logging.DEBUG, logger="memoryapp")
    for _ in range(3):
        ok, result = await guarded(
            _deaf(0.5), path="read", lost="fact recall", timeout=0.05, name="the fact search"
        )
        assert (ok, result) == (False, None)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings  # once per outage
    assert "fact recall lost" in warnings[0]
    assert "the fact search had no answer within its bound of 0.05 s" in warnings[0]
    taken = float(warnings[0].rsplit("given up after ", 1)[1].removesuffix(" s"))
    assert taken >= 0.05
    outages.reset()


async def test_a_recall_call_past_its_grace_says_both_bounds():
    result, error = await attempted(
        _deaf(), timeout=0.05, grace=0.05, name="the recall's turn call"
    )
    assert result is None
    assert isinstance(error, MemoryTimeout) and error.call == "the recall's turn call"
    assert "its bound of 0.05 s (up to 0.10 s while memory answered others)" in str(error)
