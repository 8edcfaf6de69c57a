"""Fact consolidation against the live embedded server, through the SDK and the offline judge."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest

from memoryapp.clients import memory_client_async
from memoryapp.episodes import session_close
from memoryapp.recall import memories_recall, memory_tool_recall
from memoryapp.recording import exchange_remember, facts_record, turn_record
from memoryapp.selectors import records_list
from memoryapp.sessions import session_open

pytestmark = pytest.mark.asyncio


async def open_session(name: str, session_id=None, **kwargs):
    return await session_open(user_id=name, display_name="Tester", session_id=session_id, **kwargs)


async def visit(name: str, query: str, *, close: bool = True, **kwargs):
    """One visit: the shopper says something, the policy remembers it, the panel closes."""
    memory = await open_session(name, **kwargs)
    saved = await exchange_remember(memory=memory, query=query, answer="Noted.")
    if close:
        await session_close(user_id=name, display_name="Tester", session_id=memory.session_id)
    return memory, saved


async def fact_lines(name: str, message: str = "what should I wear") -> list[str]:
    memory = await open_session(name)
    recall = await memories_recall(memory=memory, message=message, turn_count=0)
    return [item.line for item in recall.items if item.scope == "fact"]


async def fact_records(name: str) -> list:
    page = await asyncio.to_thread(records_list, user_id=name, limit=100)
    return [record for record in page.records if record.kind == "fact"]


async def stored(name: str, kind: str) -> list:
    user = await memory_client_async().get_user(name)
    page = await user.list_memories(limit=200)
    return [b for b in page.memory_blocks if (b.annotations or {}).get("type") == kind]


async def test_twelve_restatements_are_one_fact_stored_and_shown_once(live_memory, shopper_name):
    first, saved = await visit(shopper_name, "I'm a size M")
    assert saved.facts == ["The shopper wears size M."]
    for _ in range(11):
        _, again = await visit(shopper_name, "I'm a size M, show me jeans")
        assert again.ids.fact == [] and again.facts == []
    facts = await stored(shopper_name, "fact")
    assert [b.fact for b in facts] == ["The shopper wears size M."]
    assert facts[0].session_id == first.session_id  # the first statement stays the fact
    assert await stored(shopper_name, "superseded_fact") == []
    lines = await fact_lines(shopper_name, "jeans in my size")
    assert len(lines) == 1 and lines[0].endswith("The shopper wears size M.")
    records = await fact_records(shopper_name)
    assert [(r.text, r.slot, r.superseded) for r in records] == [
        ("The shopper wears size M.", "size/tops", False)
    ]


async def test_m_then_l_recalls_only_l_and_keeps_m_as_history(live_memory, shopper_name):
    spring, _ = await visit(shopper_name, "I'm a size M", session_date=date(2026, 3, 1))
    summer = await open_session(shopper_name, session_date=date(2026, 6, 1))
    saved = await exchange_remember(memory=summer, query="I'm now a size L", answer="Noted.")
    assert saved.facts == ["The shopper wears size L."]

    # In the visit that said so (its listing holds the history copy) and in a later one.
    resumed = await open_session(shopper_name, session_id=summer.session_id)
    recall = await memories_recall(memory=resumed, message="my size", turn_count=1)
    assert [i.line for i in recall.items if i.scope == "fact"] == [
        "[fact · stated 2026-06-01] The shopper wears size L."
    ]
    assert not any("The shopper wears size M." in item.line for item in recall.items)
    looked_up = await memory_tool_recall(memory=resumed, query="The shopper wears size M.")
    assert looked_up and not any("wears size M." in item.line for item in looked_up)
    assert await fact_lines(shopper_name, "size M") == [
        "[fact · stated 2026-06-01] The shopper wears size L."
    ]

    # M is history: moved out of its ended session, keeping its date, marked superseded.
    history = await stored(shopper_name, "superseded_fact")
    assert [(b.fact, b.created_at[:10]) for b in history] == [
        ("The shopper wears size M.", "2026-03-01")
    ]
    assert history[0].annotations["stated_in"] == spring.session_id
    assert history[0].annotations["superseded_by"] == saved.ids.fact[0]
    records = {r.text: r for r in await fact_records(shopper_name)}
    assert records["The shopper wears size M."].superseded
    assert records["The shopper wears size M."].slot == "size/tops"
    assert not records["The shopper wears size L."].superseded


async def test_a_dislike_after_a_liking_of_a_colour_is_the_only_one_recalled(
    live_memory, shopper_name
):
    await visit(shopper_name, "I love yellow")
    await visit(shopper_name, "I'm not a fan of yellow any more")
    lines = await fact_lines(shopper_name, "yellow dresses")
    assert [line.split("] ", 1)[1] for line in lines] == ["The shopper dislikes yellow."]
    records = {r.text: r.superseded for r in await fact_records(shopper_name)}
    assert records == {"The shopper likes yellow.": True, "The shopper dislikes yellow.": False}


async def test_a_change_of_size_is_applied_to_the_current_size(live_memory, shopper_name):
    await visit(shopper_name, "I'm a 42 in shoes and an M")
    _, saved = await visit(shopper_name, "I went up a size")
    assert saved.facts == ["The shopper wears size L."]
    _, shoes = await visit(shopper_name, "I went up a shoe size")
    assert shoes.facts == ["The shopper wears shoe size 43."]
    lines = sorted(line.split("] ", 1)[1] for line in await fact_lines(shopper_name))
    assert lines == ["The shopper wears shoe size 43.", "The shopper wears size L."]


async def test_a_change_of_size_with_no_size_to_change_stores_nothing(live_memory, shopper_name):
    _, saved = await visit(shopper_name, "I went up a size")
    assert saved.ids.fact == [] and await stored(shopper_name, "fact") == []


async def test_a_fact_from_a_visit_dated_before_the_current_one_becomes_history(
    live_memory, shopper_name
):
    await visit(shopper_name, "I'm a size L", session_date=date(2026, 6, 1))
    _, saved = await visit(shopper_name, "I'm a size S", session_date=date(2025, 1, 1))
    assert saved.ids.fact == []
    assert [line.split("] ", 1)[1] for line in await fact_lines(shopper_name)] == [
        "The shopper wears size L."
    ]
    history = await stored(shopper_name, "superseded_fact")
    assert [(b.fact, b.created_at[:10]) for b in history] == [
        ("The shopper wears size S.", "2025-01-01")
    ]


async def legacy_facts(name: str, texts: list[str]) -> None:
    """Facts as they were stored before consolidation: `type: fact` and nothing else."""
    memory = await open_session(name)
    for text in texts:
        await memory.resource.add_memory(
            facts=[text], annotations={"type": "fact"}, memory_block_ttl=0, context_required=False
        )


async def test_the_fact_budget_is_filled_with_distinct_facts(live_memory, shopper_name, settings):
    settings.MEMORY_CROSS_SESSION_FACT_K = 4
    others = [
        "The shopper dislikes yellow.",
        "The shopper prefers the brand Kestrel.",
        "The shopper's budget is up to 80 EUR.",
        "The shopper is shopping for a wedding.",
        "The shopper prefers linen.",
    ]
    await legacy_facts(shopper_name, ["The shopper wears size M."] * 12 + others)
    lines = await fact_lines(shopper_name, "which size does the shopper wear")
    texts = [line.split("] ", 1)[1] for line in lines]
    assert len(texts) == 4 and len(set(texts)) == 4
    assert texts.count("The shopper wears size M.") == 1


async def test_twelve_old_copies_of_a_fact_render_once(live_memory, shopper_name):
    await legacy_facts(shopper_name, ["The shopper wears size M."] * 12)
    assert [line.split("] ", 1)[1] for line in await fact_lines(shopper_name, "size M")] == [
        "The shopper wears size M."
    ]


async def test_of_two_old_sizes_stored_before_consolidation_the_later_is_recalled(
    live_memory, shopper_name
):
    await legacy_facts(shopper_name, ["The shopper wears size M.", "The shopper wears size L."])
    assert [line.split("] ", 1)[1] for line in await fact_lines(shopper_name, "size")] == [
        "The shopper wears size L."
    ]


async def test_restating_a_fact_stored_before_consolidation_tidies_its_copies(
    live_memory, shopper_name
):
    await legacy_facts(shopper_name, ["The shopper wears size M."] * 3)
    _, saved = await visit(shopper_name, "I'm a size L now")
    assert saved.facts == ["The shopper wears size L."]
    assert [b.fact for b in await stored(shopper_name, "fact")] == ["The shopper wears size L."]
    # One history record of the old size, not three.
    assert [b.fact for b in await stored(shopper_name, "superseded_fact")] == [
        "The shopper wears size M."
    ]


async def test_earlier_visits_and_episodes_that_say_the_same_are_recalled_once(
    live_memory, shopper_name, monkeypatch
):
    from memoryapp import episodes
    from memoryapp.judge import Episode

    async def same_episode(*, turns, facts=()):
        return Episode("The shopper looked for jeans.", None, False, [])

    monkeypatch.setattr(episodes, "episode_compose", same_episode)
    for day in (1, 2, 3):
        memory = await open_session(shopper_name, session_date=date(2026, 4, day))
        await turn_record(memory=memory, query="show me jeans", answer="Here are jeans.")
        await session_close(
            user_id=shopper_name, display_name="Tester", session_id=memory.session_id
        )
    now = await open_session(shopper_name)
    recall = await memories_recall(memory=now, message="jeans", turn_count=0)
    episodes = [i.line for i in recall.items if i.scope == "episode"]
    turns = [i.line for i in recall.items if i.scope == "turn"]
    assert len(episodes) == 1 and episodes[0].startswith("[past visit summary · 2026-04-03")
    assert len(turns) == 1 and turns[0].startswith("[earlier visit · 2026-04-03]")


async def test_facts_record_still_takes_plain_sentences(live_memory, shopper_name):
    memory = await open_session(shopper_name)
    first = await facts_record(memory=memory, facts=["The shopper wears shoe size 42."])
    again = await facts_record(memory=memory, facts=["The shopper wears shoe size 42."])
    assert len(first) == 1 and again == []


async def test_a_lift_across_visits_retires_what_it_lifts(live_memory, shopper_name):
    await visit(shopper_name, "I love Vela and I can't stand yellow", session_date=date(2026, 3, 1))
    await visit(shopper_name, "I hate Tern, my budget is 80 euros", session_date=date(2026, 4, 1))
    later = await open_session(shopper_name, session_date=date(2026, 6, 1))
    saved = await exchange_remember(
        memory=later, query="Any brand is fine with me these days", answer="Noted."
    )
    assert saved.facts == ["The shopper does not mind which brand."]
    await exchange_remember(memory=later, query="Yellow's fine now", answer="Noted.")
    await exchange_remember(
        memory=later, query="Forget the budget, money's no object", answer="Noted."
    )
    await session_close(user_id=shopper_name, display_name="Tester", session_id=later.session_id)

    lines = [line.split("] ", 1)[1] for line in await fact_lines(shopper_name, "a jacket")]
    assert sorted(lines) == [
        "The shopper does not mind which brand.",
        "The shopper has no budget limit any more.",
        "The shopper no longer minds yellow.",
    ]
    superseded = {b.fact for b in await stored(shopper_name, "superseded_fact")}
    assert superseded == {
        "The shopper prefers the brand Vela.",
        "The shopper dislikes the brand Tern.",
        "The shopper dislikes yellow.",
        "The shopper's budget is up to 80 EUR.",
    }
