"""Memory blocks through the unmodified sync SDK against a live server."""

from __future__ import annotations

import time

import pytest
from agentmemory import FilterOptions
from agentmemory.exceptions import NotFoundError, ValidationError

from tests.support.polling import wait_until

pytestmark = pytest.mark.live_memory


def _search(session, query=None, **filters):
    return session.search_memory(query, filters=filters or None).memory_blocks


def test_add_facts_and_messages_then_read_them_back(session):
    facts = session.add_memory(
        facts=["Prefers the Trail Runner 2 in size 42", "Allergic to wool"],
        annotations={"kind": "fact"},
        context_required=False,
    )
    assert facts.accepted_count == 2 and facts.rejected_count == 0 and len(facts.block_ids) == 2
    turn = session.add_memory(
        messages=[
            {
                "user_content": "Do you have rain jackets?",
                "assistant_content": "Yes, the Storm Shell.",
            }
        ],
        created_at="2026-01-02T10:00:00",
        async_processing=False,
    )
    blocks = {b.block_id: b for b in session.list_memories().memory_blocks}
    fact = blocks[facts.block_ids[0]]
    assert fact.fact == "Prefers the Trail Runner 2 in size 42" and fact.message is None
    assert fact.annotations == {"kind": "fact"}
    # Extraction off: ready at once, no summary or contexts, still searchable.
    assert fact.status.value == "ready" and fact.summary is None and fact.contexts is None
    message = blocks[turn.block_ids[0]]
    assert message.message.user_content == "Do you have rain jackets?"
    assert message.created_at.startswith("2026-01-02T10:00:00")
    # async_processing=false returns after extraction: ready, summary and product names kept.
    assert message.status.value == "ready" and message.summary
    assert any("Storm Shell" in c for c in message.contexts)
    hits = _search(session, "trail runner shoes size")
    assert hits[0].block_id == facts.block_ids[0] and hits[0].rel_score > 0


def test_oversized_block_is_rejected_inside_a_201(session):
    result = session.add_memory(facts=["ok", "word " * 5000], context_required=False)
    assert result.accepted_count == 1 and result.rejected_count == 1
    detail = result.rejected_details[0]
    assert detail["input_index"] == 1 and detail["per_request_token_limit"] == 4096


def test_bad_memory_requests_raise_validation_or_not_found(session, user):
    with pytest.raises(ValidationError):
        session.add_memory(facts=["x"], annotations={"bad-key": "v"})
    with pytest.raises(ValidationError):
        session.search_memory("q", filters={"relevant_k": 0})
    with pytest.raises(ValidationError):
        session.search_memory("q", filters={"start_time": "yesterday"})
    with pytest.raises(NotFoundError):
        session.update_memory("no-such-block", fact="x")
    with pytest.raises(NotFoundError):
        session.add_memory(facts=["x"], prompt_id="no-such-prompt")
    with pytest.raises(NotFoundError):
        user.get_session("missing").search_memory("q")


def test_status_lifecycle_processing_ready_failed(session):
    added = session.add_memory(
        facts=["Likes the Alpine Fleece", "FLAKY note about the Canyon Pack", "ALWAYSFAIL note"]
    )
    ok, flaky, failing = added.block_ids
    first = {b.block_id: b for b in session.list_memories().memory_blocks}
    # Written at once and readable while extraction runs (or already done).
    assert set(first) >= set(added.block_ids)

    def settled():
        blocks = {b.block_id: b for b in session.list_memories().memory_blocks}
        return all(blocks[i].status.value != "processing" for i in added.block_ids)

    assert wait_until(settled)
    blocks = {b.block_id: b for b in session.list_memories().memory_blocks}
    assert blocks[ok].status.value == "ready" and "Alpine Fleece" in blocks[ok].summary
    assert blocks[ok].last_queued_at is not None
    assert (blocks[flaky].status.value, blocks[flaky].fail_count) == ("ready", 2)
    assert (blocks[failing].status.value, blocks[failing].fail_count) == ("extraction_failed", 3)
    assert blocks[failing].summary is None and blocks[failing].contexts is None
    # Failed blocks still come back from search (C1), with their raw text.
    assert failing in [b.block_id for b in _search(session, "ALWAYSFAIL note")]

    # An update with async processing queues a failed block again.
    session.update_memory(failing, fact="now a normal note about gloves")
    assert wait_until(
        lambda: (
            {b.block_id: b for b in session.list_memories().memory_blocks}[failing].status.value
            == "ready"
        )
    )


def test_search_scopes_sessions(user):
    s1, s2 = user.create_session("a"), user.create_session("b")
    s1.add_memory(facts=["red running shoes"], context_required=False)
    s2.add_memory(facts=["red running socks"], context_required=False)
    assert {b.session_id for b in _search(s1, "red running")} == {"a"}
    assert {b.session_id for b in _search(s1, "red running", session_ids=["b"])} == {"b"}
    everywhere = s1.search_memory("red running", filters=FilterOptions(session_ids="all"))
    assert {b.session_id for b in everywhere.memory_blocks} == {"a", "b"}
    assert everywhere.count == 2


def test_annotation_filters_pre_and_post(session):
    session.add_memory(facts=[f"blue jacket model {i}" for i in range(5)], context_required=False)
    tagged = session.add_memory(
        facts=["green scarf"], annotations={"topic": "scarf", "src": "turn"}, context_required=False
    )
    # pre: filter first, so the one tagged block is found even though it ranks low.
    pre = _search(session, "blue jacket", annotations={"topic": "scarf"}, relevant_k=3)
    assert [b.block_id for b in pre] == tagged.block_ids
    # post: top-k first, then the filter: the tagged block is not in the top 3.
    post = _search(
        session,
        "blue jacket",
        annotations={"topic": "scarf"},
        relevant_k=3,
        annotation_filter_mode="post",
    )
    assert post == []
    # Every key must match.
    assert _search(session, annotations={"topic": "scarf", "src": "other"}) == []
    assert len(_search(session, annotations={"topic": "scarf", "src": "turn"})) == 1


def test_search_filters_block_ids_times_and_relevant_k(session):
    old = session.add_memory(
        facts=["old receipt"], created_at="2020-05-01T00:00:00Z", context_required=False
    )
    cutoff = time.time()
    time.sleep(0.01)
    new = session.add_memory(facts=["new receipt", "another receipt"], context_required=False)
    assert len(_search(session, "receipt", relevant_k=2)) == 2
    by_id = _search(session, "receipt", block_ids=old.block_ids)
    assert [b.block_id for b in by_id] == old.block_ids
    from datetime import UTC, datetime

    since = datetime.fromtimestamp(cutoff, UTC).isoformat()
    recent = {b.block_id for b in _search(session, start_time=since)}
    assert recent == set(new.block_ids)
    created = _search(
        session, created_start_time="2020-01-01T00:00:00", created_end_time="2020-12-31T00:00:00"
    )
    assert [b.block_id for b in created] == old.block_ids


def test_filter_only_search_returns_every_match_newest_first(session):
    ids = []
    for n in range(12):
        ids += session.add_memory(facts=[f"note {n}"], context_required=False).block_ids
    found = _search(session, relevant_k=3)
    assert [b.block_id for b in found] == ids[::-1]  # not capped by relevant_k
    assert all(b.rel_score is None for b in found)


def test_listing_orders_newest_first_and_pages_past_twenty(user):
    session = user.create_session("paging")
    ids = []
    for n in range(25):
        created = f"2025-01-{n + 1:02d}T00:00:00Z" if n % 5 else None
        ids += session.add_memory(
            facts=[f"item {n}"], created_at=created, context_required=False
        ).block_ids
    first = session.list_memories(limit=20)
    second = session.list_memories(limit=20, offset=20)
    assert (first.total, first.count, second.count) == (25, 20, 5)
    assert [b.block_id for b in first.memory_blocks + second.memory_blocks] == ids[::-1]
    by_created = user.list_memories(order_by="created_at", limit=200).memory_blocks
    undated = [b for b in by_created if b.created_at is None]
    assert by_created[-len(undated) :] == undated  # null created_at sorts last
    dated = [b.created_at for b in by_created if b.created_at]
    assert dated == sorted(dated, reverse=True)
    with pytest.raises(NotFoundError):
        from agentmemory import AgentMemoryClient  # noqa: F401

        user.delete()
        user.list_memories()


def test_update_content_annotations_and_type_rules(session):
    fact = session.add_memory(
        facts=["likes blue"], annotations={"a": "1"}, context_required=False
    ).block_ids[0]
    turn = session.add_memory(
        messages=[{"user_content": "hi", "assistant_content": "hello"}]
    ).block_ids[0]
    updated = session.update_memory(
        fact, fact="likes green", async_processing=False, context_required=True
    )
    assert updated.block.fact == "likes green" and updated.block.annotations == {"a": "1"}
    assert updated.block.status.value == "ready" and updated.block.summary == "likes green"
    assert _search(session, "likes green")[0].block_id == fact
    relabelled = session.update_memory(fact, annotations={"b": "2"})
    assert relabelled.block.annotations == {"b": "2"}
    with pytest.raises(ValidationError) as info:
        session.update_memory(turn, fact="a fact now")
    assert info.value.error_code == "BLOCK_TYPE_MISMATCH"


def test_delete_blocks_by_id_and_all(session):
    ids = session.add_memory(facts=["a", "b", "c"], context_required=False).block_ids
    result = session.delete_memory(block_ids=[ids[0], "already-gone"])
    assert (result.deleted_count, result.failed_count) == (2, 0)
    assert {b.block_id for b in session.list_memories().memory_blocks} == set(ids[1:])
    assert _search(session, "a", block_ids=[ids[0]]) == []
    assert session.delete_memory(block_ids="all").deleted_count == 2
    assert session.list_memories().total == 0


def test_ttl_expiry_hides_blocks_and_update_restarts_it(user):
    session = user.create_session("ttl", memory_blocks_ttl=1)
    short = session.add_memory(facts=["short lived"], context_required=False).block_ids[0]
    forever = session.add_memory(
        facts=["kept forever"], memory_block_ttl=0, context_required=False
    ).block_ids[0]
    renewed = session.add_memory(facts=["renewed later"], context_required=False).block_ids[0]
    session.update_memory(renewed, memory_block_ttl=30)
    assert wait_until(
        lambda: short not in {b.block_id for b in session.list_memories().memory_blocks}
    )
    remaining = {b.block_id for b in session.list_memories().memory_blocks}
    assert remaining == {forever, renewed}
    assert short not in {b.block_id for b in _search(session, "short lived")}
    with pytest.raises(NotFoundError):
        session.update_memory(short, fact="too late")


def test_modify_ttl_reaches_only_the_path_users_blocks(client, user):
    other = client.create_user(f"{user.user_id}-other", name="Bea")
    # The same session id and the same block ids asked for, under another user.
    theirs = other.create_session("shared").add_memory(facts=["b1"], context_required=False)
    mine = user.create_session("shared").add_memory(facts=["a1"], context_required=False)
    user.modify_ttl(1, session_id="shared", block_ids=[*mine.block_ids, *theirs.block_ids])
    user.modify_ttl(1, session_id="shared")
    user.modify_ttl(1)
    assert wait_until(lambda: user.list_memories().total == 0)
    time.sleep(1.1)  # past any expiry those calls could have given the other user's block
    kept = other.get_session("shared").list_memories().memory_blocks
    assert [b.block_id for b in kept] == theirs.block_ids


def test_a_block_is_updated_only_through_its_own_users_path(client, user):
    other = client.create_user(f"{user.user_id}-other", name="Bea")
    theirs = other.create_session("shared").add_memory(facts=["b1"], context_required=False)
    mine = user.create_session("shared")
    with pytest.raises(NotFoundError):
        mine.update_memory(theirs.block_ids[0], fact="rewritten by someone else")
    kept = other.get_session("shared").list_memories().memory_blocks
    assert [(b.block_id, b.fact) for b in kept] == [(theirs.block_ids[0], "b1")]


def test_modify_ttl_scopes(user):
    a, b = user.create_session("ta"), user.create_session("tb")
    a_ids = a.add_memory(facts=["a1", "a2"], context_required=False).block_ids
    b_ids = b.add_memory(facts=["b1"], context_required=False).block_ids
    user.modify_ttl(1, session_id="ta", block_ids=[a_ids[0]])
    user.modify_ttl(1, session_id="tb")
    assert wait_until(lambda: user.list_memories(limit=200).total == 1)
    assert [x.block_id for x in user.list_memories().memory_blocks] == [a_ids[1]]
    user.modify_ttl(1)
    assert wait_until(lambda: user.list_memories().total == 0)
    assert b_ids  # all three scopes reached their blocks
