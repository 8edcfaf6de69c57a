"""Reads of the embedded server, in process: listings cost the same few queries at any size."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from memoryserver import selectors
from memoryserver.db import db_alias
from memoryserver.services.prompts import prompt_create, prompt_update
from memoryserver.services.sessions import session_create
from memoryserver.services.users import user_create
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

DB = ["default", "agentmemory"]  # agentmemory test DB depends on default


def _counted(read):
    with CaptureQueriesContext(connections[db_alias()]) as queries:
        result = read()
    return result, len(queries)


@pytest.mark.django_db(databases=DB)
def test_listing_users_reads_every_listed_users_sessions_in_one_query():
    for n in range(4):
        user_create(user_id=f"lister-{n}", name="Lister", metadata=None)
        for s in range(n):
            session_create(
                user_id=f"lister-{n}",
                session_id=f"s{s}",
                annotations=None,
                metadata=None,
                blocks_ttl=None,
            )

    def listed(limit: int):
        users, total = selectors.users_list(name="Lister", metadata={}, limit=limit, offset=0)
        return [(user.user_id, session_ids) for user, session_ids in users], total

    (one, total_one), queries_one = _counted(lambda: listed(1))
    (four, total_four), queries_four = _counted(lambda: listed(4))
    assert four == [
        ("lister-0", []),
        ("lister-1", ["s0"]),
        ("lister-2", ["s0", "s1"]),
        ("lister-3", ["s0", "s1", "s2"]),
    ]
    assert one == four[:1] and total_one == total_four == 4
    assert queries_four == queries_one


@pytest.mark.django_db(databases=DB)
def test_listing_prompts_reads_counts_and_current_text_with_the_page():
    for n in range(3):
        prompt_create(prompt_id=f"listed-{n}", text=f"v0 of {n}", description="", annotations=None)
    prompt_update(prompt_id="listed-1", text="v1 of 1", description=None, annotations=None)

    def listed(limit: int):
        prompts, total = selectors.prompts_list(limit=limit, offset=0)
        mine = [p for p in prompts if p.prompt_id.startswith("listed-")]
        return [(p.prompt_id, p.version_count, p.current_text) for p in mine], total

    (one, _), queries_one = _counted(lambda: listed(1))
    (three, _), queries_three = _counted(lambda: listed(3))
    assert three == [
        ("listed-0", 1, "v0 of 0"),
        ("listed-1", 2, "v1 of 1"),
        ("listed-2", 1, "v0 of 2"),
    ]
    assert one == three[:1]
    assert queries_three == queries_one
    detail = selectors.prompt_detail(prompt_id="listed-1")
    assert (detail.version_count, detail.current_text) == (2, "v1 of 1")


def test_search_criteria_default_to_the_searched_session():
    assert selectors.search_criteria(session_id="s", filters={}).session_ids == ["s"]
    everywhere = selectors.search_criteria(session_id="s", filters={"session_ids": "all"})
    assert everywhere.session_ids is None
    start = datetime(2026, 1, 1, tzinfo=UTC)
    dated = selectors.search_criteria(
        session_id="s", filters={"session_ids": ["a", "b"], "created_start_time": start}
    )
    assert dated.session_ids == ["a", "b"]
    assert dated.created_range == (start.timestamp(), math.inf)
    assert dated.ingested_range == (-math.inf, math.inf)


@pytest.mark.django_db(databases=DB)
def test_listing_blocks_from_the_index_matches_sqlite_and_follows_writes():
    from datetime import timedelta

    from memoryserver.index.registry import get_registry
    from memoryserver.services.blocks import NewBlock, blocks_add, blocks_delete

    get_registry().clear()
    user_create(user_id="index-lister", name="L", metadata=None)
    for session in ("a", "b"):
        session_create(
            user_id="index-lister",
            session_id=session,
            annotations=None,
            metadata=None,
            blocks_ttl=None,
        )
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for n in range(12):
        blocks_add(
            user_id="index-lister",
            session_id="a" if n % 3 else "b",
            items=[NewBlock(fact=f"fact {n}")],
            annotations=None,
            block_ttl=None,
            context_required=False,
            # Some undated, some dated out of order: both orders have ties and nulls to sort.
            created_at=None if n % 4 == 0 else start + timedelta(days=(n * 5) % 7),
            async_processing=True,
            prompt_id=None,
            prompt_vid=None,
        )

    # Another user with the same session ids: neither listing may show their block.
    blocks_stocked(user_stocked("index-lister-other", ("a",)), "a", ["someone else's fact"])

    def both(**query):
        from_index = selectors.blocks_list(user_id="index-lister", **query)
        from_sql = selectors._blocks_list_sql("index-lister", *query.values())
        return from_index, from_sql

    for session_ids in (None, ["a"], ["b", "a"], ["nope"]):
        for order_by in ("ingested_at", "created_at"):
            for limit, offset in ((5, 0), (5, 5), (20, 0), (3, 11)):
                query = dict(session_ids=session_ids, order_by=order_by, limit=limit, offset=offset)
                from_index, from_sql = both(**query)
                assert from_index == from_sql, query

    first = selectors.blocks_list(
        user_id="index-lister", session_ids=["b"], order_by="ingested_at", limit=20, offset=0
    )
    blocks_delete(user_id="index-lister", session_id="b", block_ids=[first[0][0]["block_id"]])
    after, total = selectors.blocks_list(
        user_id="index-lister", session_ids=["b"], order_by="ingested_at", limit=20, offset=0
    )
    assert total == first[1] - 1 and after == first[0][1:]
    get_registry().clear()


@pytest.mark.django_db(databases=DB)
def test_loading_an_index_from_sqlite_builds_what_upserting_each_block_would():
    from datetime import timedelta

    import numpy as np

    from memoryserver.clock import clock
    from memoryserver.models import MemoryBlock
    from memoryserver.services.blocks import NewBlock, blocks_add
    from memoryserver.services.prompts import prompt_create as create_prompt

    user_create(user_id="loader", name="L", metadata=None)
    for session in ("a", "b"):
        session_create(
            user_id="loader", session_id=session, annotations=None, metadata=None, blocks_ttl=None
        )
    create_prompt(prompt_id="terse", text="Be terse.", description="", annotations=None)
    start = datetime(2025, 3, 1, 12, 30, 15, 250000, tzinfo=UTC)
    for n in range(9):
        blocks_add(
            user_id="loader",
            session_id="ab"[n % 2],
            items=[
                NewBlock(fact=f"fact {n}"),
                NewBlock(user_content=f"q {n}", assistant_content="a"),
            ],
            annotations=[None, {"type": "fact"}, {"type": "turn", "k": "v"}][n % 3],
            block_ttl=[None, 0, 3600, 1][n % 4],
            context_required=n % 2 == 0,
            created_at=None if n % 3 == 0 else start + timedelta(hours=n, microseconds=n),
            async_processing=True,
            prompt_id="terse" if n == 4 else None,
            prompt_vid=None,
        )
    clock.advance(2)  # the 1-second TTLs have run out: loading leaves them out
    try:
        loaded = selectors.load_user_index("loader")
        expected = upserted_index(
            MemoryBlock.objects.filter(user_key="loader").order_by("id"), clock.now()
        )
    finally:
        clock.reset()
    assert loaded.size == expected.size == len(loaded) > 0
    assert set(loaded.positions) == set(expected.positions)
    assert loaded.ids[: loaded.size] == [b for b in loaded.positions]  # rows in any order
    for block_id, at in loaded.positions.items():
        there = expected.positions[block_id]
        for name in (
            "vectors",
            "alive",
            "pks",
            "ingested",
            "created",
            "expires",
            "status",
            "prompt_vids",
        ):
            mine, theirs = getattr(loaded, name)[at], getattr(expected, name)[there]
            assert np.array_equal(mine, theirs, equal_nan=name == "created"), (name, block_id)
        assert loaded.annotations[at] == expected.annotations[there]
        for terms in (["fact"], ["q", "3"], ["terse"], ["a"]):
            mine = loaded.lexical.scores(terms, loaded.size)[0][at]
            assert mine == expected.lexical.scores(terms, expected.size)[0][there], terms
        for codes, name in ((loaded.session_codes, "sessions"), (loaded.prompt_codes, "prompts")):
            names = {code: key for key, code in codes.items()}
            other = {code: key for key, code in getattr(expected, f"{name[:-1]}_codes").items()}
            assert names.get(getattr(loaded, name)[at]) == other.get(
                getattr(expected, name)[there]
            ), (name, block_id)


@pytest.mark.django_db(databases=DB)
def test_times_in_the_last_millisecond_of_a_second_load_as_written():
    from memoryserver.models import MemoryBlock
    from memoryserver.services.blocks import NewBlock, blocks_add

    user_create(user_id="late-ms", name="L", metadata=None)
    session_create(
        user_id="late-ms", session_id="s", annotations=None, metadata=None, blocks_ttl=None
    )
    second = datetime(2025, 3, 1, 12, 30, 15, tzinfo=UTC)
    for micros in (0, 500, 999_499, 999_500, 999_999):
        blocks_add(
            user_id="late-ms",
            session_id="s",
            items=[NewBlock(fact=f"fact {micros}")],
            annotations=None,
            block_ttl=0,
            context_required=False,
            created_at=second.replace(microsecond=micros),
            async_processing=True,
            prompt_id=None,
            prompt_vid=None,
        )
    # Each block stamped as written at the time it speaks for, so listing follows the times.
    blocks = list(MemoryBlock.objects.filter(user_key="late-ms").order_by("id"))
    for block in blocks:
        MemoryBlock.objects.filter(pk=block.pk).update(ingested_at=block.created_at)
    loaded = selectors.load_user_index("late-ms")
    for block in MemoryBlock.objects.filter(user_key="late-ms"):
        at = loaded.positions[block.block_id]
        assert loaded.created[at] == block.created_at.timestamp(), block.created_at
        assert loaded.ingested[at] == block.ingested_at.timestamp(), block.ingested_at
    listed = [
        hit.block_id for hit in loaded.search(selectors.search_criteria(session_id="s", filters={}))
    ]
    assert listed == [b.block_id for b in reversed(blocks)]  # newest first


def upserted_index(blocks, now):
    from memoryserver.index.slot import UserIndex

    index = UserIndex(dimensions=384)
    for block in blocks:
        if block.expires_at is None or block.expires_at > now:
            index.upsert(selectors.index_row(block))
    return index


@pytest.mark.django_db(databases=DB)
def test_loading_an_index_copes_with_blocks_written_after_it_counted(monkeypatch):
    import numpy as np

    blocks_stocked(user_stocked("late-writes"), "s", [f"fact {n}" for n in range(70)])
    counted = selectors.load_user_index("late-writes")
    # As if the count had run before the rows were written: the matrix must grow.
    monkeypatch.setattr(selectors, "capacity_for", lambda blocks: 1)
    grown = selectors.load_user_index("late-writes")
    assert grown.size == counted.size == 70 and grown.positions == counted.positions
    assert np.array_equal(grown.vectors[:70], counted.vectors[:70])
