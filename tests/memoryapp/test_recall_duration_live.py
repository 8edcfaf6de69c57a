"""A recall's duration is its calls' time, not the time its turn spent elsewhere first."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model

from memoryapp.accounts import account_memory_user_id_async
from memoryapp.turn import TurnMemory
from tests.memoryapp.test_policy_live import open_session

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ELSEWHERE = 1.0  # what the turn does between opening its session and asking for the recall


async def test_an_early_recall_asked_for_late_reports_its_own_calls_time(live_memory, shopper_name):
    account = await sync_to_async(get_user_model().objects.create_user)(shopper_name)
    first = await open_session(await account_memory_user_id_async(account=account))
    opened = time.perf_counter()
    memory = await TurnMemory.open(
        account=account,
        display_name="Tess",
        session_id=first.session_id,
        message="a warm coat",
        turn_count=1,
    )
    await asyncio.sleep(ELSEWHERE)  # the turn's chat record, the catalog's vocabulary, ...
    recall = await memory.recall()
    waited_ms = (time.perf_counter() - opened) * 1000
    memory.close()
    assert recall.failed == []
    # The calls went out with the session's lookup and were back long before they were
    # asked for: none of the time spent elsewhere is the recall's.
    assert recall.duration_ms < waited_ms - ELSEWHERE * 1000 / 2, (recall.duration_ms, waited_ms)
    assert recall.started >= opened
