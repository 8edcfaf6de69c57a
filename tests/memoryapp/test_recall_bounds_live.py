"""What a turn's recall may cost, whatever the session holds and whatever the client counts."""

from __future__ import annotations

import pytest

from memoryapp.conf import memory_conf
from memoryapp.fence import notes_message
from memoryapp.recall import memories_recall
from memoryapp.recording import facts_record, turn_record
from memoryapp.render import tokens_estimate
from tests.memoryapp.test_policy_live import exchanges, resumed_session
from tests.support.session_search import in_session_search_watch

pytestmark = pytest.mark.asyncio

SIZES = ["S", "M", "L"]
BUDGETS = ["50 EUR", "80 EUR", "120 EUR"]
SHOES = ["38", "39", "40"]


def verbatim(i: int) -> str:
    return f"[this visit] Shopper: question {i} ‖ Assistant: answer {i}"


async def test_the_newest_exchanges_arrive_whole_while_every_turn_changes_a_preference(
    live_memory, shopper_name, monkeypatch, settings
):
    # The search of every session also finds this one's turns: let it add at most one.
    settings.MEMORY_CROSS_SESSION_TURN_K = 1
    conf = memory_conf()
    assert conf.verbatim_window_turns == 3 and conf.search_threshold_turns == 10
    memory = await resumed_session(shopper_name)
    turns = 12
    for i in range(turns):
        assert await turn_record(memory=memory, query=f"question {i}", answer=f"answer {i}")
        # Each change of mind leaves a history copy of the fact it replaces in this session.
        colour = "likes" if i % 2 else "dislikes"
        await facts_record(
            memory=memory,
            facts=[
                f"The shopper wears size {SIZES[i % 3]}.",
                f"The shopper's budget is up to {BUDGETS[i % 3]}.",
                f"The shopper {colour} yellow.",
                f"The shopper wears shoe size {SHOES[i % 3]}.",
            ],
        )
    page = await memory.resource.list_memories(limit=200)
    history = [b for b in page.memory_blocks if (b.annotations or {}).get("type") != "turn"]
    assert len(history) >= 4 * turns  # more history and facts than the window's first page

    # The window must stand on its own: the in-session search finds nothing this time.
    in_session_search_watch(monkeypatch, memory, fail=True)
    recall = await memories_recall(memory=memory, message="question", turn_count=turns)
    notes = notes_message(recall.lines) or ""
    window = [line for line in notes.splitlines() if line.startswith("[this visit] ")]
    assert window == [verbatim(i) for i in range(turns - 3, turns)]


@pytest.mark.parametrize("told", [0, 4])
async def test_a_client_that_miscounts_gets_the_window_and_search_not_the_session(
    live_memory, shopper_name, monkeypatch, told
):
    memory = await resumed_session(shopper_name)
    turns = 30
    await exchanges(memory, [(f"question {i}", f"answer {i}") for i in range(turns)])
    honest = await memories_recall(memory=memory, message="question 3", turn_count=turns)

    in_session_searches = in_session_search_watch(monkeypatch, memory)
    lying = await memories_recall(memory=memory, message="question 3", turn_count=told)
    assert in_session_searches == ["question 3"]
    lines = [i.line for i in lying.items if i.scope == "session"]
    assert lines[-3:] == [verbatim(i) for i in range(turns - 3, turns)]
    # What an honest client at the same turn gets: the window and the search's hits.
    assert sorted(lines) == sorted(i.line for i in honest.items if i.scope == "session")
    assert len(lines) < turns


async def test_a_failed_search_for_a_miscounting_client_keeps_its_window(
    live_memory, shopper_name, monkeypatch
):
    memory = await resumed_session(shopper_name)
    await exchanges(memory, [(f"question {i}", f"answer {i}") for i in range(12)])
    in_session_search_watch(monkeypatch, memory, fail=True)
    recall = await memories_recall(memory=memory, message="question 3", turn_count=0)
    lines = [i.line for i in recall.items if i.scope == "session"]
    assert lines[-3:] == [verbatim(i) for i in (9, 10, 11)]
    assert "session_search" in recall.failed


async def test_a_turns_notes_keep_to_their_token_budget(live_memory, shopper_name, settings):
    memory = await resumed_session(shopper_name)
    long = "a linen shirt with a relaxed fit, in stone or navy, " * 4
    await exchanges(memory, [(f"question {i} {long}", f"answer {i}") for i in range(20)])
    await facts_record(memory=memory, facts=["The shopper wears size M."])
    settings.MEMORY_NOTES_MAX_TOKENS = 100_000
    whole = await memories_recall(memory=memory, message="linen shirt", turn_count=20)
    settings.MEMORY_NOTES_MAX_TOKENS = 450
    assert tokens_estimate(notes_message(whole.lines) or "") > 450
    recall = await memories_recall(memory=memory, message="linen shirt", turn_count=20)
    notes = notes_message(recall.lines) or ""
    assert tokens_estimate(notes) <= 450
    assert "The shopper wears size M." in notes
    window = [line for line in notes.splitlines() if line.startswith("[this visit] ")]
    assert [line.split()[4] for line in window] == ["17", "18", "19"]
