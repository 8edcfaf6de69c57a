"""A turn's write carries its chat turn's id as an idempotency key, so a write that memory
kept although its answer was lost (a timeout while the server was frozen) is recognised, in
the records and in the panel, and never written twice."""

from __future__ import annotations

import httpx
import pytest
from agentmemory import AsyncSessionResource

from assistant.models import ChatTurn
from memoryapp.clients import memory_client_async
from tests.support.chat import Chat, session_cookie_for
from tests.support.shopper_memory import memory_user_of_async

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tess(shopper_name, django_db_blocker):
    from shop.services import shopper_get_or_create

    username = shopper_name[:30].rstrip("-")
    with django_db_blocker.unblock():
        shopper_get_or_create(username=username, display_name="Tess")
        cookie = session_cookie_for(username)
    return username, cookie


class LostAnswers:
    """The next turn-block add lands on the server but its answer is lost; optionally the
    look-ups right after fail too (the server still frozen)."""

    def __init__(self, monkeypatch, *, searches_fail: bool) -> None:
        self.armed = True
        self.searches_fail = searches_fail
        real_add, real_search = AsyncSessionResource.add_memory, AsyncSessionResource.search_memory
        rig = self

        async def add_memory(resource, *args, **kwargs):
            result = await real_add(resource, *args, **kwargs)
            if rig.armed and (kwargs.get("annotations") or {}).get("type") == "turn":
                rig.armed = False
                rig.failing_searches = rig.searches_fail
                raise httpx.ReadTimeout("the answer was lost")
            return result

        async def search_memory(resource, *args, **kwargs):
            filters = kwargs.get("filters") or {}
            if getattr(rig, "failing_searches", False) and "turn_key" in (
                filters.get("annotations") or {}
            ):
                raise httpx.ReadTimeout("still frozen")
            return await real_search(resource, *args, **kwargs)

        monkeypatch.setattr(AsyncSessionResource, "add_memory", add_memory)
        monkeypatch.setattr(AsyncSessionResource, "search_memory", search_memory)

    def thaw(self) -> None:
        self.failing_searches = False


async def turn_blocks(username: str, session_id: str) -> list:
    user = await memory_client_async().get_user(await memory_user_of_async(username))
    session = await user.get_session(session_id)
    blocks = (await session.list_memories(limit=50)).memory_blocks
    return [b for b in blocks if (b.annotations or {}).get("type") == "turn"]


async def test_a_write_kept_after_its_answer_was_lost_is_recognised_at_once(
    live_memory, tess, monkeypatch
):
    username, cookie = tess
    LostAnswers(monkeypatch, searches_fail=False)
    async with Chat(cookie=cookie) as chat:
        events = await chat.turn("show me rain jackets")
    session_id, added = events[0]["session_id"], events[-1]
    [block] = await turn_blocks(username, session_id)
    assert added["type"] == "memory.added" and added["block_ids"]["turn"] == [block.block_id]
    turn = await ChatTurn.objects.aget(pk=next(e for e in events if e["type"] == "done")["turn_id"])
    assert turn.saved["turn"] == [block.block_id]
    assert block.annotations["turn_key"] == str(turn.pk)


async def test_one_recognised_by_the_next_healthy_turn_is_listed_in_its_record(
    live_memory, tess, monkeypatch
):
    username, cookie = tess
    rig = LostAnswers(monkeypatch, searches_fail=True)
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("show me rain jackets")
        session_id = first[0]["session_id"]
        first_turn = next(e for e in first if e["type"] == "done")["turn_id"]
        assert first[-1]["block_ids"]["turn"] == []  # reported as not saved, at the time
        assert first[-1]["failed"] == ["turn"]
        rig.thaw()
        second = await chat.turn("and boots?", session_id=session_id, turn_count=1)
    blocks = await turn_blocks(username, session_id)
    keys = sorted(b.annotations["turn_key"] for b in blocks)
    second_turn = next(e for e in second if e["type"] == "done")["turn_id"]
    assert keys == sorted([str(first_turn), str(second_turn)])  # written once each
    record = await ChatTurn.objects.aget(pk=first_turn)
    kept = next(b.block_id for b in blocks if b.annotations["turn_key"] == str(first_turn))
    assert record.saved["turn"] == [kept]
    assert record.saved["failed"] == []  # found after all: no longer marked as lost
    assert "saved late: memory kept this write after its answer was lost" in record.error


def test_consolidation_never_deletes_a_fact_the_shopper_was_told_was_saved():
    """The acknowledged copy is older than one memory kept after its answer was lost: the
    restatement that follows deletes neither (recall shows one), only unacknowledged copies."""
    from datetime import UTC, datetime

    from llm.fact_schema import FactSlot
    from memoryapp.consolidation import facts_plan
    from memoryapp.judge import JudgedFact
    from tests.support.memory_blocks import fact

    def stored(at: str, session: str):
        block = fact("The shopper wears size M.", at=at, session=session)
        slot = {"category": "size", "slot": "size/tops", "value": "M"}
        return block.model_copy(update={"annotations": block.annotations | slot})

    told = stored("2026-03-01T10:00:00+00:00", "session1")
    kept_late = stored("2026-03-01T10:00:20+00:00", "session1")
    stray = stored("2026-02-01T10:00:00+00:00", "session0")
    said = JudgedFact("The shopper wears size M.", FactSlot("size", "size/tops", "M"))
    plan = facts_plan(
        new=[said],
        current=[told, kept_late, stray],
        stated_at=datetime(2026, 10, 1, tzinfo=UTC),
        protected=frozenset({told.block_id}),
    )
    assert plan.restated == [said] and plan.store == []
    assert told not in plan.duplicates and [b.block_id for b in plan.duplicates] == [stray.block_id]
